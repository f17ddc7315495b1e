/**
 * Parses a tool call's raw JSON arguments into the object a provider wants back. Input that is not
 * a JSON object (truncated by an interrupted stream, or plain invalid) becomes `{}` so the request
 * stays valid; the loop has already reported the bad input to the model as an error result.
 */
export function parseToolInput(input: string): Record<string, unknown> {
  if (input === "") return {};
  try {
    const value: unknown = JSON.parse(input);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}
