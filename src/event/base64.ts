/**
 * Appends one base64 fragment to another. Two base64 strings concatenate as-is unless the first one
 * ends in padding; only then are the bytes decoded and re-encoded.
 */
export function appendBase64(head: string, tail: string): string {
  if (head === "") return tail;
  if (tail === "") return head;
  if (!head.endsWith("=")) return head + tail;
  return btoa(atob(head) + atob(tail));
}
