// What the model should know about its own context before it runs out: past about 70% of the window,
// each request ends with a short note to summarise what it needs and finish the step it is on. The
// note is never part of the conversation (not journaled, not resent once the context is smaller
// again, as after a compaction), and a session below the threshold sends nothing more than before.

/** The share of the window past which the note is sent. */
export const CONTEXT_NOTE_AT = 0.7;

/** The note for a request of `promptTokens`, or null below the threshold. */
export function contextNote(window: () => number): (promptTokens: number) => string | null {
  return (promptTokens) => {
    const size = window();
    if (size <= 0 || promptTokens < size * CONTEXT_NOTE_AT) return null;
    const percent = Math.min(99, Math.round((promptTokens / size) * 100));
    return `[nex: a note about your context, not from the user] The context is about ${percent}% full (${promptTokens} of ${size} tokens); older turns will be summarised soon and their details lost. Write down what you still need (file names, decisions, what is left to do) in your next reply, and finish the step you are on.`;
  };
}
