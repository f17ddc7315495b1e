import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { normalizeMessages } from "../../src/model/normalize.js";
import { STANDARD_TOOLS, standardConversation } from "./fixtures/standard-conversation.js";
import { casesWith } from "./helpers/provider-cases.js";

/**
 * One standard conversation formatted by every formatter, compared with the expected request body in
 * test/model/fixtures/<fixture>. `UPDATE_FIXTURES=1` rewrites the files (review the diff). One
 * entry per provider (helpers/provider-cases.ts).
 */
const CASES = casesWith("formatter").map(({ formatter }) => formatter);

describe.each(CASES)("formatter fixture $fixture", ({ fixture, provider, keepProviderRuns, format }) => {
  it("formats the standard conversation, normalised as the model does, as the recorded body", () => {
    const history = normalizeMessages(standardConversation(provider), { provider, keepProviderRuns });
    const body = format(history, STANDARD_TOOLS);
    const path = new URL(`./fixtures/${fixture}`, import.meta.url);
    if (process.env.UPDATE_FIXTURES === "1") writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`);
    if (!existsSync(path))
      throw new Error(
        `no fixture ${fixture}: run UPDATE_FIXTURES=1 npx vitest run ${"test/model/formatter-fixtures.test.ts"} and review it`,
      );
    expect(body).toEqual(JSON.parse(readFileSync(path, "utf8")));
  });
});
