/** A failure the CLI reports as one line and a hint (no stack trace), exiting non-zero. */
export class CliError extends Error {
  constructor(
    message: string,
    /** What to do about it, shown on a second line. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = "CliError";
  }
}
