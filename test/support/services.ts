import { connect } from "node:net";
import { it } from "vitest";

/** Whether something listens on 127.0.0.1:port (half a second to answer). */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port, timeout: 500 });
    const done = (up: boolean) => {
      socket.destroy();
      resolve(up);
    };
    socket.once("connect", () => done(true));
    socket.once("timeout", () => done(false));
    socket.once("error", () => done(false));
  });
}

/**
 * Why a server a test needs is unusable, or undefined when it is up. Callers skip with this message,
 * except under AGENTSCOPE_REQUIRE_SERVICES=1 where `reportMissingService` fails instead.
 */
export async function missingService(name: string, port: number): Promise<string | undefined> {
  if (await listening(port)) return undefined;
  return `${name} is not running on 127.0.0.1:${port}: start it to run these tests`;
}

/** Registers a skipped test carrying the reason, or a failing one when services are required. */
export function reportMissingService(reason: string): void {
  if (process.env.AGENTSCOPE_REQUIRE_SERVICES === "1") {
    it(`needs a server (AGENTSCOPE_REQUIRE_SERVICES=1): ${reason}`, () => {
      throw new Error(reason);
    });
  } else {
    it.skip(`skipped: ${reason}`, () => {});
  }
}

/** A name unique to this test run, safe as an SQL table name or key prefix. */
export function runName(kind: string): string {
  return `as_test_${kind}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
}
