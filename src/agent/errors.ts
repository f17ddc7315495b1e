/** A reply could not start or resume because of what was asked; nothing was changed. */
export class ReplyStateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ReplyStateError";
  }
}
