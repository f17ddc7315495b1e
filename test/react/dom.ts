import { Window } from "happy-dom";

/**
 * A happy-dom page for React tests that keeps Node's own fetch (happy-dom's fetch adds a browser's
 * CORS rules and fails when a streamed body is cancelled). Import it before React.
 */
const page = new Window({ url: "http://127.0.0.1/" });
const globals = globalThis as Record<string, unknown>;
for (const key of Object.getOwnPropertyNames(page)) {
  if (key in globals) continue;
  globals[key] = (page as unknown as Record<string, unknown>)[key];
}
globals.window = page;
globals.document = page.document;
globals.IS_REACT_ACT_ENVIRONMENT = true;

/** Closes the page (its timers) after the tests. */
export async function closePage(): Promise<void> {
  await page.happyDOM.close();
}
