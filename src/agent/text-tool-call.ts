// A model whose server does not parse tool calls (vLLM without --enable-auto-tool-choice, llama.cpp
// without --jinja, a chat template that lacks tools) writes its calls into the answer as text. Ending
// such a run as "done" would report a task as finished while nothing of it ran, so the loop asks.

import type { AssembledToolCall } from "../protocol/index.ts";
import { parseJson } from "../protocol/index.ts";
import { canonicalToolName, commandNamedTool } from "./tool-names.ts";

/** The shapes open models use to write a call as text, when the server leaves it unparsed. */
const MARKERS = [
  /<tool_call>/i, // Hermes, Qwen 2.5/3
  /<function=[\w.-]+>/i, // Qwen3-Coder XML
  /<\|tool_call(?:s)?_(?:begin|section_begin)\|>/i, // DeepSeek, Kimi
  /\[TOOL_CALLS\]/, // Mistral
  /<\|python_tag\|>/, // Llama 3.1
  /\[TOOL_REQUEST\]/, // LM Studio's default format, for models without native tool support
];

/**
 * The name of the tool an answer seems to call as text, or null. A marker counts only with one of the
 * session's tool names near it; a bare JSON object counts only when it is the whole answer (fenced or
 * not) and names a tool, so prose that merely mentions a tool is not caught.
 */
export function textToolCall(text: string, toolNames: readonly string[]): string | null {
  return findTextToolCall(text, toolNames)?.tool ?? null;
}

/**
 * A call written as text and its form: `marked` when it carries a tool-call marker of a chat format
 * (`<tool_call>`...: the server left its own format unparsed), else a bare or fenced JSON object
 * (the model wrote its call outside its format, which no server parses).
 */
export function findTextToolCall(
  text: string,
  toolNames: readonly string[],
): { tool: string; marked: boolean } | null {
  const named = (fragment: string): string | null =>
    toolNames.find((name) => new RegExp(`["'=>\\s]${name}["'<>\\s]`).test(` ${fragment} `)) ?? null;
  for (const marker of MARKERS) {
    const match = marker.exec(text);
    if (!match) continue;
    const name = named(text.slice(match.index, match.index + 400));
    if (name) return { tool: name, marked: true };
  }
  const whole = unwrapped(text) ?? unfenced(text);
  if (!whole.startsWith("{") || !whole.endsWith("}")) return null;
  const value = objectOf(whole);
  const hasArgs = value !== null && ("arguments" in value || "parameters" in value);
  return hasArgs && typeof value.name === "string" && toolNames.includes(value.name)
    ? { tool: value.name, marked: false }
    : null;
}

/**
 * The session tool a reply calls in JSON inside other text (`Let me list the directory:` and then
 * `{"name": "list_dir", "arguments": ...}`; a call nested in another object), or null. Only an
 * object that opens as a call (the tool's name, then its `arguments`) to a tool of the session
 * counts, whether or not it closes: a model that writes that has tried to call the tool, and nothing
 * ran. JSON of anything else (a config file, package.json's `{"name": "glob", "version": ...}`)
 * stays part of an answer. `replyNudge` asks this last: a reply that is JSON and nothing else runs
 * (`jsonReplyCalls`) or is told as invented or broken first.
 */
export function embeddedToolCall(text: string, toolNames: readonly string[]): string | null {
  for (const match of text.matchAll(CALL_ANYWHERE)) {
    const name = canonicalToolName(match[1] ?? "", toolNames);
    if (toolNames.includes(name)) return name;
  }
  return null;
}

/** A call opening anywhere in a text, as `CALL_OPENING` is at a reply's start. */
const CALL_ANYWHERE = /\{\s*"name"\s*:\s*"([^"\n]{1,100})"\s*,\s*"(?:arguments|parameters)"\s*:/g;

/**
 * What the model is told the first time its answer is a call written as JSON outside its chat
 * format: small models do this now and then, and do call the tool when told.
 */
export function textToolCallReminder(tool: string, embedded = false): string {
  const what = embedded
    ? `your reply wrote ${aCall(tool)} as JSON inside other text`
    : `your reply was ${aCall(tool)} written as JSON text`;
  return `nex: ${what}, so nothing ran. Use the tool-calling interface to call ${tool} (a real tool call, not JSON in your answer); if you are finished, answer in plain words.`;
}

/** "a read_file call", "an edit_file call": the article as the tool's name is said. */
export function aCall(tool: string): string {
  return `${/^[aeiou]/i.test(tool) ? "an" : "a"} ${tool} call`;
}

/**
 * What the user is told when a run's final answer is a call written as text: right after nex told
 * the model so, or (`asked`) after the run's reminders went to other problems.
 */
export function textToolCallMessage(tool: string, marked = true, asked?: number): string {
  const when =
    asked === undefined
      ? "again after nex told it to make a real tool call"
      : `after nex had asked it again ${asked} times this run`;
  if (!marked)
    return (
      `The model wrote ${aCall(tool)} as JSON text instead of calling the tool, ${when}, so nex ran nothing and the task is not done. ` +
      "The model writes calls outside its chat format's tool-call syntax, which no server parses: a model trained for tool calls does better. " +
      "If it never calls tools at all, check that the server parses tool calls (llama.cpp needs --jinja); `nex doctor` checks this."
    );
  return (
    `The model wrote ${aCall(tool)} as plain text instead of calling the tool, so nex ran nothing and the task is not done. ` +
    "The server is not parsing tool calls: start vLLM with --enable-auto-tool-choice and the model's --tool-call-parser, " +
    "llama.cpp with --jinja, or use a model and chat template that support tools; `nex doctor` checks this."
  );
}

/** One call a reply wrote as JSON: the tool and its arguments (refused later unless an object). */
export interface JsonReplyCall {
  name: string;
  args: unknown;
}

/**
 * The JSON objects a reply is made of, in order, or null when it holds anything else (prose, broken
 * JSON). Objects may stand bare, one per line (Qwen2.5-Coder 0.5B writes a read and an edit as two
 * lines of JSON), or in ```json fences, one fence of a pair possibly missing (it ends a bare call with
 * a closing fence), a stray closing brace after them. Braces inside strings do not count, so a file's
 * content with fences or braces in it stays whole.
 */
function jsonObjects(text: string): string[] | null {
  const body = unwrapped(text) ?? text;
  const pieces = jsonPieces(body);
  return pieces !== null && pieces.tail === null ? pieces.objects : callList(body);
}

/**
 * The calls of a reply that lists them with commas between (`{call}, {call}`: Qwen2.5-Coder 0.5B,
 * r13 add-flag-py), in brackets or not, when every object of it is a call (a name and its arguments
 * or parameters); else null. A list with anything else in it (records that name a tool, as a
 * package-lock's do) stays the content it is.
 */
function callList(text: string): string[] | null {
  const objects = listedObjects(text);
  const everyOneACall = objects?.every((json) => {
    const value = objectOf(json);
    return (
      typeof value?.name === "string" &&
      (value.arguments !== undefined || value.parameters !== undefined)
    );
  });
  return everyOneACall ? objects : null;
}

/** The objects of a reply that is a list of them, commas between, in brackets or not; else null. */
function listedObjects(text: string): string[] | null {
  let body = unfenced(text);
  if (body.startsWith("[") && body.endsWith("]")) body = body.slice(1, -1);
  const objects: string[] = [];
  const gap = /[\s,]+/y;
  let i = 0;
  while (i < body.length) {
    gap.lastIndex = i;
    if (gap.test(body)) {
      if (objects.length === 0 && body.slice(i, gap.lastIndex).includes(",")) return null;
      i = gap.lastIndex;
      continue;
    }
    const end = body[i] === "{" ? objectEnd(body, i) : null;
    if (end === null) return null;
    objects.push(body.slice(i, end));
    i = end;
  }
  return objects.length > 0 ? objects : null;
}

/** A reply's JSON objects as `jsonObjects` reads them, and an object left unclosed at its end. */
function jsonPieces(text: string): { objects: string[]; tail: string | null } | null {
  const objects: string[] = [];
  let i = 0;
  // Between objects: space, fences, and closing braces the model added one too many of (r9
  // fix-import: a complete bash call, then a lone `}`): the object before them is whole.
  const gap = /(?:\s|```(?:json)?|\})+/iy;
  while (i < text.length) {
    gap.lastIndex = i;
    if (gap.test(text)) {
      i = gap.lastIndex;
      continue;
    }
    if (text[i] !== "{") return null;
    const end = objectEnd(text, i);
    if (end === null) return { objects, tail: text.slice(i).replace(/\s*```\s*$/, "") };
    objects.push(text.slice(i, end));
    i = end;
  }
  return { objects, tail: null };
}

/** Where the object opening at `start` ends (just past its closing brace), or null if it never does. */
function objectEnd(text: string, start: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}" && --depth === 0) return i + 1;
  }
  return null;
}

/**
 * The calls of a reply that consists of nothing but JSON objects (bare, one per line, or in ```json
 * fences) of which at least one is a call (`{"name": ..., "arguments": {...}}`) to a tool of the
 * session; else null. Small models served with their chat template (Qwen2.5-Coder on llama-server
 * --jinja) write most of their calls this way, outside the template's `<tool_call>` tags, and repeat
 * it when told: such a reply is a call and nothing else. Among several objects, a call to a tool that
 * does not exist is a call too (refused as a native one would be) and an object that is no call (a
 * stray `{"additionalProperties": false}`: Qwen2.5-Coder 0.5B) is left out, so that the others run and
 * the reply never ends the task as done; one invented call alone is left to `inventedToolCall`.
 */
export function jsonReplyCalls(text: string, toolNames: readonly string[]): JsonReplyCall[] | null {
  const calls = (jsonObjects(text) ?? [])
    .flatMap((body) => callOf(body) ?? [])
    .map((call) => ({ ...call, name: commandNamedTool(call.name, call.args, toolNames) }));
  const known = calls.some((call) => toolNames.includes(canonicalToolName(call.name, toolNames)));
  return known ? calls : null;
}

/** The call one JSON object is (`name`, then `arguments`, `parameters` or the keys beside it), or null. */
function callOf(json: string): JsonReplyCall | null {
  const value = objectOf(json);
  if (value === null) return null;
  const { name, arguments: args, parameters } = value;
  // Keys beside the name and the arguments reach no tool (`"additionalProperties": false` copied from
  // the schema, `"status": "pending"` from todo_write's: Qwen2.5-Coder 0.5B): the call is its name
  // and arguments, which nex already names as a call when it tells the model it wrote one as text.
  if (typeof name !== "string") return null;
  const given = args !== undefined ? args : parameters;
  if (given !== undefined) return { name, args: argumentsOf(given) };
  // No arguments key: the keys beside the name are its arguments (`{"name": "bash", "command": ...}`),
  // and a name alone is a call without any (`{"name": "list_dir"}`: Qwen2.5-Coder 0.5B, r12), judged
  // by the tool as any call; a name that is no tool keeps the object an answer (jsonReplyCalls).
  const { name: _name, ...beside } = value;
  return { name, args: beside };
}

/**
 * A JSON call's arguments in the wire's own forms read as the object they stand for: a string of
 * JSON (OpenAI's `arguments` is one) is that object, and nothing (`null`, `""`, `"null"`: Qwen2.5-Coder
 * 0.5B's list_dir in dead-code) is no argument, which the tool's own checks then judge. Anything else
 * stays as it came, to be refused with what arrived.
 */
function argumentsOf(given: unknown): unknown {
  if (given === null) return {};
  if (typeof given !== "string") return given;
  const text = given.trim();
  if (text === "" || text === "null") return {};
  const inner = parsed(text);
  return typeof inner === "object" && inner !== null && !Array.isArray(inner) ? inner : given;
}

// Qwen2.5-Coder 1.5B now and then doubles the braces around its call (`{{"name": ...}}}`, as in a
// template that escapes them): one pair of braces less is the call it meant.
const DOUBLED = /^\{\{[\s\S]*\}\}$/;

/** The JSON object a text is (doubled braces read as one pair), or null when it is none. */
function objectOf(json: string): Record<string, unknown> | null {
  const value = parsed(json) ?? (DOUBLED.test(json) ? parsed(json.slice(1, -1)) : null);
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function parsed(json: string): unknown {
  try {
    return parseJson(json);
  } catch {
    return null;
  }
}

/**
 * The name in a reply that is one JSON call (`{"name": ..., "arguments": ...}`, bare or fenced) to a
 * tool the session does not have, or null. A small model invents tools from the task's words (a
 * function of the repository, a file name); as an answer, that JSON would end the task as done.
 */
export function inventedToolCall(text: string, toolNames: readonly string[]): string | null {
  const body = unwrapped(text) ?? unfenced(text);
  if (!body.startsWith("{")) return null;
  const value = objectOf(body);
  if (value === null) {
    // Broken JSON that opens as a call (a brace missing: Qwen2.5-Coder 0.5B, yaml-edit) still names
    // it; text that parses as something else (a list, a string) is no call.
    const named = parsed(body) === null ? CALL_OPENING.exec(body)?.[1] : undefined;
    return named !== undefined && !toolNames.includes(named) ? named : null;
  }
  const named = typeof value.name === "string" ? value.name : null;
  const hasArgs = "arguments" in value || "parameters" in value;
  return named !== null && hasArgs && !toolNames.includes(named) ? named : null;
}

/** A reply without the fences around it (either may be missing). */
function unfenced(text: string): string {
  return text
    .trim()
    .replace(/^```(?:json)?\s*/i, "")
    .replace(/\s*```$/, "");
}

/**
 * A reply's JSON without what may stand around it and still leave the JSON the whole reply: space,
 * fences, chat-template tokens (`<|im_end|>`, `</s>`), a label before it (`json`, `Tool call:`) and
 * a few stray punctuation marks (`>`: Qwen2.5-Coder 0.5B, r12 rename-py; a trailing `.`). None of
 * them is content, so the reply reads as the bare JSON would. Null when anything else stands there:
 * words (the JSON sits in prose: `embeddedToolCall`), brackets (a list) or a tool-call marker (the
 * server left its own format unparsed: `findTextToolCall`).
 */
function unwrapped(text: string): string | null {
  const first = text.indexOf("{");
  if (first < 0) return null;
  // A reply that ends inside an object (a brace missing) has nothing after it.
  const last = text.lastIndexOf("}");
  const end = last > text.lastIndexOf("{") ? last + 1 : text.length;
  const lead = text.slice(0, first);
  const trail = text.slice(end);
  if (MARKERS.some((marker) => marker.test(lead) || marker.test(trail))) return null;
  return isWrapping(lead.replace(LABELS, "")) && isWrapping(trail) ? text.slice(first, end) : null;
}

/** True when a text beside a reply's JSON is no content: tokens, fences, space, a few stray marks. */
function isWrapping(text: string): boolean {
  const left = text
    .replace(TEMPLATE_TOKENS, "")
    .replace(/```[\w-]*/g, "")
    .replace(/\s+/g, "");
  // Brackets are content: a JSON list of objects (packages, records) is an answer, unless one of
  // them opens as a call (`embeddedToolCall`).
  return left.length <= MAX_STRAY_MARKS && !/[\p{L}\p{N}_{}[\]]/u.test(left);
}

// Chat-template tokens a server passes on as text (ChatML, Llama 3, DeepSeek, Mistral, Gemma) and a
// closing `</tool_call>` without its opening tag; tool-call markers are checked before these.
const TEMPLATE_TOKENS =
  /<\|[^<>|\s]{1,40}\|>|<｜[^<>｜]{1,40}｜>|<\/?s>|<\/?(?:eos|bos|start_of_turn|end_of_turn)>|<\/tool_call>|\[\/?INST\]/gi;
// A word a model puts before its call, as a label: never a sentence.
const LABELS = /\b(?:json|assistant|model|(?:tool|function)[ _-]?calls?|call|action)\b\s*:?/gi;
// `**Call:**` leaves four: markdown's emphasis around a label; a stray mark or two is the usual.
const MAX_STRAY_MARKS = 4;

/** How a call written as JSON opens: its name, then its arguments. */
const CALL_OPENING = /^\{\s*"name"\s*:\s*"([^"]+)"\s*,\s*"(?:arguments|parameters)"\s*:/;

/**
 * The tool a reply seems to call in JSON that does not parse (a brace missing, a quote unescaped:
 * Qwen2.5-Coder 0.5B), or null. Such a reply is no answer: as one, it would end the task as done.
 */
export function brokenJsonCall(text: string, toolNames: readonly string[]): string | null {
  const body = unwrapped(text);
  const pieces = jsonPieces(body ?? text);
  // Of several calls (one per line), the one that does not parse is named, not the first; a reply
  // that is no sequence of objects at all is judged whole, by how it opens.
  const candidates =
    pieces === null
      ? (listedObjects(body ?? text) ?? [body ?? unfenced(text)])
      : [...pieces.objects, ...(pieces.tail === null ? [] : [pieces.tail])];
  for (const piece of candidates) {
    const named = CALL_OPENING.exec(piece)?.[1];
    if (named !== undefined && toolNames.includes(named) && parsed(piece) === null) return named;
  }
  return null;
}

/** What the model is told when its reply was a call in JSON that does not parse. */
export function brokenJsonCallReminder(tool: string): string {
  return `nex: your reply was ${aCall(tool)} written as JSON text that is not valid JSON (check its braces and quotes), so nothing ran. Call ${tool} with a real tool call; if you are finished, answer in plain words.`;
}

/**
 * What nex found of a file name the model used as a tool's name: the workspace paths that exist (a
 * few; `more` when there were others), or null when it could not look.
 */
export interface FilesFound {
  paths: readonly string[];
  more: boolean;
}

/** What the model is told when it called a tool that does not exist. */
export function inventedToolReminder(
  name: string,
  toolNames: readonly string[],
  found: FilesFound | null = null,
): string {
  // load_tools is left out of the list: Qwen2.5-Coder 0.5B, told it among the rest, asked load_tools
  // for every tool of the list instead of calling one (fix-test-js, change-nothing).
  const working = toolNames.filter((tool) => tool !== "load_tools");
  return `nex: there is no tool named "${name}", so nothing ran. Your tools are: ${working.join(", ")}.${meantCall(name, toolNames, found)} Call one of them with a real tool call, or, if you are finished, answer in plain words.`;
}

/** True when a name the model gave a tool is a file's (`stats.py`, `test/clamp.test.js`). */
export function namesAFile(name: string): boolean {
  return FILE_NAME.test(name) && !COMMAND.test(name);
}

// Small models name their call after the task's words: a file (stats.py, count.js) or a command
// (node --test). The call they meant is then one of the session's tools, said with its arguments.
const COMMAND =
  /^(?:node|npm|npx|python3?|pytest|pip|git|make|cargo|go|bash|sh|ls|cat|grep)(?:\s|$)/;
const FILE_NAME = /^[\w./-]+\.[A-Za-z]{1,5}$/;

/**
 * The call a name the model gave a tool probably meant (a command, a file, or where to look), as one
 * or two sentences after a leading space; empty when nothing fits.
 */
export function meantCall(
  name: string,
  toolNames: readonly string[],
  found: FilesFound | null,
): string {
  if (COMMAND.test(name) && toolNames.includes("bash"))
    return ` To run \`${name}\`, call bash with {"command": ${JSON.stringify(name)}}.`;
  if (FILE_NAME.test(name) && toolNames.includes("read_file"))
    return fileHint(name, toolNames, found);
  if (toolNames.includes("list_dir") && toolNames.includes("read_file"))
    return " To see the project's files, call list_dir; to read one, call read_file with its path.";
  return "";
}

/**
 * The read_file call a file name meant, naming only paths nex found (r12 add-test-js: told to read
 * `clamp.test.js`, the model read a path that was not there; the file was `test/clamp.test.js`).
 */
function fileHint(name: string, toolNames: readonly string[], found: FilesFound | null): string {
  const base = name.slice(name.lastIndexOf("/") + 1);
  // A read-only agent (a sub-agent exploring) is told to read, not to change.
  const then = toolNames.includes("edit_file") ? ", then change it with edit_file" : "";
  const read = (path: string) => `call read_file with {"path": ${JSON.stringify(path)}}${then}`;
  const find = toolNames.includes("glob")
    ? `call glob with {"pattern": ${JSON.stringify(found === null ? base : `*${base.slice(base.lastIndexOf("."))}`)}}`
    : toolNames.includes("list_dir")
      ? "call list_dir"
      : null;
  if (found === null)
    // Nothing is known of what exists, so nothing is claimed.
    return find === null
      ? ` If you mean a file named ${base}, call read_file with its path.`
      : ` If you mean a file named ${base}, ${find} to find its path, then read it with read_file.`;
  const [first, ...others] = found.paths;
  if (first === undefined) {
    const create = toolNames.includes("write_file")
      ? " To create it, call write_file with its path and content."
      : "";
    const search = find === null ? "" : ` To find the file you meant, ${find}.`;
    return ` No file named ${base} is in the workspace (ignored files aside).${create}${search}`;
  }
  if (others.length === 0 && !found.more)
    return first === name.replace(/^\.\//, "")
      ? ` To look at the file ${first}, ${read(first)}.`
      : ` The file ${base} is at ${first}: to look at it, ${read(first)}.`;
  const more = found.more ? ", and more (glob lists them all)" : "";
  return ` Files named ${base}: ${found.paths.join(", ")}${more}. To look at one, call read_file with its path (as {"path": ${JSON.stringify(first)}})${then}.`;
}

/** A reply's JSON calls as the calls they are, ids marked as nex's; wrong-shaped arguments refused. */
export function asToolCalls(calls: JsonReplyCall[], turn: number): AssembledToolCall[] {
  return calls.map((call, index) => {
    const argumentsText = JSON.stringify(call.args);
    const isObject =
      typeof call.args === "object" && call.args !== null && !Array.isArray(call.args);
    // Arguments of the wrong shape are refused as any call's are: the model is told what arrived.
    const verdict: AssembledToolCall["verdict"] = isObject
      ? { type: "whole", args: call.args as Record<string, unknown>, recovery: "extracted" }
      : {
          type: "poisoned",
          cause: "not_an_object",
          reason: `the arguments are ${Array.isArray(call.args) ? "an array" : `a ${call.args === null ? "null" : typeof call.args}`}, not a JSON object of ${call.name}'s parameters`,
          bytesReceived: Buffer.byteLength(argumentsText),
        };
    return { id: `text_call_${turn}_${index + 1}`, name: call.name, argumentsText, verdict };
  });
}
