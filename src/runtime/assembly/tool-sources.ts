import type { Tool } from "../../tools/index.ts";

/** Tools beyond the built-in ones, for one session being opened (an MCP server's, an embedder's). */
export type ToolSource = (context: { workspace: string }) => Promise<Tool[]>;

const sources: ToolSource[] = [];

/**
 * Adds tools to every session this process opens, under the same contract as the built-in ones. A
 * program that embeds nex's CLI (or a test) registers them before calling `main`.
 */
export function addToolSource(source: ToolSource): void {
  sources.push(source);
}

/** The tools of every registered source. */
export async function extraTools(context: { workspace: string }): Promise<Tool[]> {
  const lists = await Promise.all(sources.map((source) => source(context)));
  return lists.flat();
}
