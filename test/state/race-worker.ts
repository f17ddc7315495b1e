/**
 * Child process of the two-process race test: `race-worker.ts <store url> <options json> <session id>
 * <increments>`. Connects, prints `ready`, waits for a line on stdin, then does each increment as
 * load -> counter + 1 -> save with compare-and-set, retried on conflict. Prints the conflicts it retried.
 */
import { createStateStore, StateConflictError } from "../../src/state/index.js";

const [url, optionsJson, sessionId, count] = process.argv.slice(2) as [string, string, string, string];
const store = await createStateStore(url, JSON.parse(optionsJson));
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
process.stdin.destroy();
let conflicts = 0;
for (let done = 0; done < Number(count); ) {
  const loaded = await store.load(sessionId);
  if (!loaded) throw new Error(`session ${sessionId} is missing`);
  const { state, version } = loaded;
  state.middleware.counter = (state.middleware.counter as number) + 1;
  try {
    await store.save(sessionId, state, { expectedVersion: version });
    done++;
  } catch (error) {
    if (!(error instanceof StateConflictError)) throw error;
    conflicts++;
  }
}
await store.close();
process.stdout.write(String(conflicts));
