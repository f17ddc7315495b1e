import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without type declarations
import { apiReports, committedReports } from "../../scripts/api-report.mjs";

interface Report {
  subpath: string;
  specifier: string;
  file: string;
  names: string[];
  text: string;
}

const FIX = "the public surface changed: run `npm run api:report` and commit api/ (review the diff)";

// Computed while collecting, so each entry point's test name carries its count of exported names.
const reports: Report[] = apiReports();
const committed: Map<string, string> = committedReports();

describe("API report (scripts/api-report.mjs, api/*.api.md)", () => {
  it.each(reports.map((r) => [r.specifier, r.names.length, r] as const))(
    "%s exports %i names, as api/ records",
    (_specifier, _count, report) => {
      expect(committed.has(report.file), `api/${report.file} is missing: ${FIX}`).toBe(true);
      expect(report.text, `api/${report.file} is stale: ${FIX}`).toBe(committed.get(report.file));
    },
  );

  it("has no report for an entry point package.json no longer exports", () => {
    const expected = new Set(reports.map((r) => r.file));
    expect(
      [...committed.keys()].filter((f) => !expected.has(f)),
      FIX,
    ).toEqual([]);
  });

  it("lists every name once, sorted, and the header counts them", () => {
    for (const report of reports) {
      expect(report.names).toEqual([...new Set(report.names)].sort());
      expect(report.text).toContain(`\n${report.names.length} exported names.\n`);
      for (const name of report.names) expect(report.text).toContain(`\n### ${name} (`);
    }
  });

  it("does not depend on the order the checker meets types (a barrel's edit moves only its own report)", () => {
    // Checked last entry first, the checker creates the same types in another order; unsorted, 18 of
    // the 22 reports came out with union members and object properties reordered.
    const reversed: Report[] = apiReports({ checkOrder: "reversed" });
    expect(reversed.map((r) => r.file)).toEqual(reports.map((r) => r.file));
    const moved = reports.filter((report, i) => report.text !== reversed[i]!.text).map((r) => r.file);
    expect(moved).toEqual([]);
  }, 300_000); // a second whole report: as long as the one computed while collecting

  it("prints no path of the checkout nor a compiler-internal id, so every machine and run agrees", () => {
    const root = new URL("../..", import.meta.url).pathname;
    for (const report of reports) {
      expect(report.text).not.toContain(root);
      expect(report.text).not.toMatch(/import\("/);
      expect(report.text, "a symbol-keyed member printed by its id").not.toMatch(/__@\w+@\d+/);
    }
  });
});
