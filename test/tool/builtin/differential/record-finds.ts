/**
 * Runs the differential test's commands and writes what they found into
 * test/tool/builtin/fixtures/differential-finds.json:
 *
 *     npx tsx test/tool/builtin/differential/record-finds.ts            # corpus + the CI seed
 *     AGENTSCOPE_DIFFERENTIAL=long AGENTSCOPE_DIFFERENTIAL_COUNT=5000 npx tsx .../record-finds.ts
 *     npx tsx .../record-finds.ts 'sort *.txt' 'git log *.txt'    # also these, each find recorded
 *
 * A find is added (reduced to the piece of a compound command that did it alone) only when it did
 * something no recorded open find did; a recorded open find the permission check now refuses is
 * marked fixed (`"open": false`), and so is one marked `"fixedBy": "environment"` that runs and
 * no longer does what it did (the Bash tool's environment fixed it; set that mark by hand). A tool
 * for people, so it reports on stdout.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCanaryTree } from "./canary-tree.js";
import { corpusCommands } from "./corpus.js";
import { isKnownOpen, loadFinds, openObservations, type RecordedFind, recordOf } from "./finds.js";
import { generateCommands } from "./generator.js";
import { describeFind, type Find } from "./harness.js";
import { realJudge } from "./judge.js";
import { openHarness } from "./open-harness.js";
import { differentialSettings } from "./settings.js";

const FILE = join(import.meta.dirname, "..", "fixtures", "differential-finds.json");
const say = (text: string) => process.stdout.write(`${text}\n`);

const settings = differentialSettings();
const harness = await openHarness(settings.concurrency);
if (typeof harness === "string") throw new Error(harness);
const today = new Date().toISOString().slice(0, 10);
const recorded = loadFinds(FILE);

// Recorded open finds the check now refuses are fixed.
const trees = { hostile: createCanaryTree("hostile"), benign: createCanaryTree("benign") };
for (const find of recorded) {
  // One the Bash tool's environment fixed is open while it still does what it did.
  const still =
    find.fixedBy === "environment"
      ? (await harness.runIn(find.repository ?? "hostile", [find.command])).finds.length > 0
      : (await realJudge(find.command, trees[find.repository ?? "hostile"].work)).allowed;
  if (find.open && !still) say(`fixed now: ${find.command}`);
  if (!find.open && still) say(`FIXED BEFORE, ALLOWED AGAIN: ${find.command}`);
  find.open = still;
}
trees.hostile.remove();
trees.benign.remove();

const byHand = process.argv.slice(2);
const runs: [string, string[]][] = [
  // Each command by hand runs once on every worker, so in both kinds of repository.
  ...(byHand.length > 0
    ? [
        ["by hand", byHand.flatMap((command) => Array<string>(settings.concurrency).fill(command))] as [
          string,
          string[],
        ],
      ]
    : []),
  ["corpus", corpusCommands()],
  [
    `generator ${settings.mode} seed ${settings.seed} count ${settings.count}`,
    generateCommands(settings.seed, settings.count),
  ],
];
const added: RecordedFind[] = [];
for (const [source, commands] of runs) {
  const result = await harness.run(commands);
  say(
    `${source}: judged ${result.tried}, ran ${result.ran}, ${result.timedOut} timed out, ${result.finds.length} finds`,
  );
  for (const find of result.finds) {
    if (source !== "by hand" && isKnownOpen(find, openObservations([...recorded, ...added]))) continue;
    const reduced: Find | undefined = await harness.reduce(find);
    const record = recordOf(find, source, today, reduced);
    if ([...recorded, ...added].some((entry) => entry.command === record.command)) continue;
    added.push(record);
    say(`\nnew find:\n${describeFind(reduced ?? find)}`);
  }
}
harness.close();

const file = JSON.parse(readFileSync(FILE, "utf8")) as { finds: RecordedFind[] };
file.finds = [...recorded, ...added];
writeFileSync(FILE, `${JSON.stringify(file, null, 2)}\n`);
say(
  `\n${added.length} new finds; ${file.finds.filter((find) => find.open).length} open of ${file.finds.length} recorded`,
);
