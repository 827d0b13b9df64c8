// A tool invented from a word of the code (`Rectangle`, `get_user`: Qwen2.5-Coder 0.5B starts most
// tasks so, r12 and r13) is answered with where the word is, so the model's next call reads that file;
// told only "call list_dir", it invented the same tool again.
import type { NameSighting, NameSightings } from "../../protocol/index.ts";

/**
 * The read_file call a word meant, from what the tool host found: where it is defined (or the files
 * named after it, or where it occurs), or that no file has it when the look covered every file. A
 * partial look that found nothing claims nothing and suggests the search.
 */
export function symbolHint(
  word: string,
  toolNames: readonly string[],
  seen: NameSightings,
): string {
  const defined = seen.sightings.filter((sighting) => sighting.kind === "definition");
  const files = seen.sightings.filter(
    (sighting) =>
      sighting.kind === "file" && !defined.some((definition) => definition.path === sighting.path),
  );
  const mentions = seen.sightings.filter((sighting) => sighting.kind === "mention");
  const quoted = JSON.stringify(word);
  const first = defined[0] ?? files[0] ?? mentions[0];
  if (first !== undefined) {
    const where =
      defined.length > 0
        ? `it is defined in ${listed(defined.map(at))}.`
        : files.length > 0
          ? `${files.length > 1 ? "the files" : "the file"} ${listed(files.map((file) => file.path))} ${files.length > 1 ? "are" : "is"} named after it.`
          : `it occurs in ${listed(mentions.map(at))}.`;
    const also =
      defined.length > 0 && files.length > 0
        ? ` ${files.length > 1 ? "The files" : "The file"} ${listed(files.map((file) => file.path))} ${files.length > 1 ? "are" : "is"} named after it.`
        : "";
    const change =
      first.kind !== "mention" && toolNames.includes("edit_file")
        ? "; to change it, edit_file"
        : "";
    return ` ${quoted} is not a tool; ${where}${also} To look at it, call read_file with {"path": ${JSON.stringify(first.path)}}${change}.`;
  }
  const grep = toolNames.includes("grep")
    ? `call grep with {"pattern": ${JSON.stringify(word)}}`
    : null;
  const look = toolNames.includes("list_dir") ? " To see the project's files, call list_dir." : "";
  if (!seen.complete)
    // The look stopped before it had read every file: nothing is claimed of what is not there.
    return grep === null ? `${look}` : ` To find where ${quoted} is, ${grep}.${look}`;
  const add = [
    toolNames.includes("edit_file") ? "edit a file with edit_file" : null,
    toolNames.includes("write_file") ? "create one with write_file" : null,
  ].filter((way) => way !== null);
  const adding = add.length > 0 ? ` If the task is to add it, ${add.join(" or ")}.` : "";
  const search = grep === null ? "" : " To search for another word, call grep.";
  return ` ${quoted} is not a tool, and no file in the workspace has that word (ignored and binary files aside).${adding}${search}${look}`;
}

/** A sighting as a reminder names it: the file and the line. */
const at = (sighting: NameSighting): string =>
  `${sighting.path} (line ${sighting.line}: ${sighting.text})`;

/** `a`, `a and b`, `a, b and c`. */
function listed(items: readonly string[]): string {
  return items.length < 2
    ? (items[0] ?? "")
    : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
