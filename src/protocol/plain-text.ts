// Text from the model or a tool must not drive the user's terminal: `\x1b[8m` would hide part of a
// command, `\r` or a cursor move would paint over it. Every UI passes such text through here first.

/* biome-ignore-start lint/suspicious/noControlCharactersInRegex: matching control characters is the job */
// ESC sequences: CSI (colours, cursor moves), OSC (title, hyperlinks), DCS/SOS/PM/APC strings, and the
// two-character forms; an unfinished one at the end is dropped too.
const escapeSequence =
  /\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]*[0-~]?)/g;
// The 8-bit forms of CSI and of the string sequences.
const c1Sequence =
  /\u009b[0-?]*[ -/]*[@-~]?|[\u0090\u0098\u009d\u009e\u009f][^\u0007\u009c]*[\u0007\u009c]?/g;
// C0 except tab and newline, DEL, and C1.
const control = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;
/* biome-ignore-end lint/suspicious/noControlCharactersInRegex: matching control characters is the job */
// Bidirectional embeddings, overrides and isolates reorder what a command says without any escape
// code (`rm -rf ~ \u202e` shows text reversed), and invisible characters hide part of it: zero-width
// space, word joiner, invisible operators, the byte order mark, interlinear annotation marks.
// Kept on purpose: ZWNJ and ZWJ (U+200C, U+200D), which emoji sequences and Persian and Indic
// scripts need, and the directional marks LRM, RLM and ALM, which only settle where neutral
// characters go between runs and cannot reverse a run.
const invisible = /[\u200b\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb]/g;

/** `text` without terminal control: no C0 (tab and newline kept), no ESC sequences, no C1, no bidi overrides or isolates, no invisible characters (joiners and directional marks stay). */
export function plainText(text: string): string {
  return text
    .replace(/\r\n/g, "\n")
    .replace(escapeSequence, "")
    .replace(c1Sequence, "")
    .replace(control, "")
    .replace(invisible, "");
}
