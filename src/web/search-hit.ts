// What every search backend answers with, and how one says it could not.

/** One search hit. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

/** A backend's failure, in words for the model and the user. */
export class SearchFailure extends Error {
  override readonly name = "SearchFailure";
  /** How long the service asked nex to wait before asking it again (a limit), when it said. */
  readonly restMs: number | null;

  constructor(message: string, restMs: number | null = null) {
    super(message);
    this.restMs = restMs;
  }
}
