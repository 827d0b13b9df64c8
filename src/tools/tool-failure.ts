import type { ToolErrorCode } from "../protocol/index.ts";

// Its own file so that the machinery under the tools (the workspace guard, search, file content)
// can fail in the model's terms without importing the tool framework, which imports them.

/** A failure the model must act on; the dispatcher turns it into an error result with its code. */
export class ToolFailure extends Error {
  readonly code: ToolErrorCode;
  constructor(code: ToolErrorCode, message: string) {
    super(message);
    this.name = "ToolFailure";
    this.code = code;
  }
}
