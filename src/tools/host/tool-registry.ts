import type { ToolSpec } from "../../protocol/index.ts";
import { allTools } from "../builtin/index.ts";
import type { Tool } from "../tool.ts";

/** A session's tools by name: the built-in and added ones, and the dynamic ones as they come and go. */
export interface ToolRegistry {
  /** The map the permissions and the dispatcher read (current after `refresh`). */
  tools: Map<string, Tool>;
  /** Takes in a change of the dynamic tools, if any. */
  refresh(): void;
  /** The specs for the model, the same array until the tools change. */
  specs(): ToolSpec[];
  /** The names of the tools marked rarely used, the same array until the tools change. */
  deferred(): string[];
}

/**
 * The tools from a fixed list and a source of dynamic ones; a dynamic tool never replaces a fixed
 * one of its name. Throws when two fixed tools share a name.
 */
export function createToolRegistry(
  list: Tool[],
  dynamicTools: (() => readonly Tool[]) | undefined,
): ToolRegistry {
  const names = new Set<string>();
  for (const tool of list) {
    if (names.has(tool.name))
      throw new Error(
        `Two tools are named ${tool.name}; rename one of them (an added tool cannot replace a built-in one).`,
      );
    names.add(tool.name);
  }
  let specs = specsOf(list);
  // The same array until the tools change, so a caller can tell a change by identity.
  let deferred = deferredOf(list);
  const tools = new Map(list.map((tool) => [tool.name, tool]));
  let dynamicSource: readonly Tool[] = [];
  let dynamicSeen: readonly Tool[] = [];
  const refresh = () => {
    const current = dynamicTools?.() ?? dynamicSource;
    if (current === dynamicSource) return;
    dynamicSource = current;
    for (const tool of dynamicSeen) tools.delete(tool.name);
    dynamicSeen = current.filter((tool) => !names.has(tool.name));
    for (const tool of dynamicSeen) tools.set(tool.name, tool);
    specs = specsOf([...list, ...dynamicSeen]);
    deferred = deferredOf([...list, ...dynamicSeen]);
  };
  return {
    tools,
    refresh,
    specs: () => {
      refresh();
      return specs;
    },
    deferred: () => {
      refresh();
      return deferred;
    },
  };
}

function specsOf(list: Tool[]): ToolSpec[] {
  return list.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.jsonSchema,
    ...(tool.brief ? { brief: tool.brief } : {}),
  }));
}

function deferredOf(all: Tool[]): string[] {
  return all.filter((tool) => tool.deferred).map((tool) => tool.name);
}

/** The tool specs published to the model, without building tools for a workspace. */
export function toolSpecs(): ToolSpec[] {
  return specsOf(
    allTools(() => {
      throw new Error("toolSpecs' tools are never called");
    }),
  );
}
