import type { Msg } from "../../message/index.js";
import { hasLocalFiles, inlineLocalFiles } from "../local-files.js";
import { type NormalizeOptions, normalizeMessages } from "../normalize.js";

/**
 * History → request body: the normaliser (for `provider`, or with these options), then `file:` attachments read into base64 (only when there
 * are any; the body is then a Promise the transport awaits), then the provider's pure formatter.
 */
export function requestBody<T>(
  messages: Msg[],
  provider: string | NormalizeOptions,
  format: (messages: Msg[]) => T,
): T | Promise<T> {
  const normalized = normalizeMessages(messages, typeof provider === "string" ? { provider } : provider);
  if (!hasLocalFiles(normalized)) return format(normalized);
  const pending = inlineLocalFiles(normalized).then(format);
  pending.catch(() => {}); // surfaces when the stream is iterated, never as an unhandled rejection
  return pending;
}
