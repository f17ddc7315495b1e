/**
 * A checkpoint cannot be restored as a whole: its workspace snapshot was pruned by the retention
 * policy, or a blob it names is gone. Nothing was changed.
 */
export class CheckpointUnavailableError extends Error {
  override readonly name = "CheckpointUnavailableError";
  constructor(why: string) {
    super(`the checkpoint cannot be restored: ${why}; nothing was changed`);
  }
}
