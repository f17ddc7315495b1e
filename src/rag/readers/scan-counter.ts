/**
 * Work done by a scanner, in characters examined: a test runs a scanner on an input of size n and
 * of size 8n and checks the count grows linearly (no timing). Scanners take it optionally.
 */
export interface ScanCounter {
  steps: number;
}

/**
 * `text.indexOf(needle, from)`, counting the characters it passes over. Every search of a linear
 * scanner starts where the last one stopped, so the sum over a document is about its length.
 */
export function findFrom(
  text: string,
  needle: string,
  from: number,
  counter: ScanCounter | undefined,
): number {
  const found = text.indexOf(needle, from);
  if (counter) counter.steps += (found === -1 ? text.length : found) - from + 1;
  return found;
}
