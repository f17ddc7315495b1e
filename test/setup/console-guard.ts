import { afterEach, beforeEach, vi } from "vitest";

/** A quiet suite: a test that prints to the console fails. Tests that expect output spy on it themselves. */
const methods = ["log", "info", "warn", "error", "debug"] as const;
const printed: string[] = [];

beforeEach(() => {
  printed.length = 0;
  for (const method of methods) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      printed.push(`console.${method}: ${args.map(String).join(" ").slice(0, 200)}`);
    });
  }
});

afterEach(() => {
  for (const method of methods) vi.mocked(console[method]).mockRestore();
  if (printed.length > 0) throw new Error(`the test printed to the console:\n${printed.join("\n")}`);
});
