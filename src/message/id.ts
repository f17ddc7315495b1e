import { randomBytes } from "node:crypto";

/**
 * Cheap unique ids: a random per-process prefix plus a counter, so the hot path (one id per event)
 * never touches the crypto pool. Ids are unique across processes because the prefix is random.
 */
const processPrefix = randomBytes(6).toString("base64url");
let counter = 0;

export function newId(kind = "id"): string {
  counter += 1;
  return `${kind}_${processPrefix}${counter.toString(36)}`;
}

const EVENT_ID_PREFIX = `evt_${processPrefix}`;

/** `newId("evt")` with its prefix joined once: one id per event, so one per streamed delta. */
export function newEventId(): string {
  counter += 1;
  return EVENT_ID_PREFIX + counter.toString(36);
}

let lastMs = 0;
let lastIso = "";

/** ISO 8601 timestamp of now; formatted at most once per millisecond (events come faster than that). */
export function nowIso(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
