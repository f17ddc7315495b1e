import type { AgentScopeClient } from "../../../../client/index.js";
import type { EvalCaseRun, EvalRunDetail, EvalRunInfo } from "../../../../protocol/eval-types.js";
import { h } from "../dom.js";

const when = (iso: string) => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
};

/** Why a run failed, in one line: its error, its first failing check's reason, or where it left its recording. */
function failure(run: EvalCaseRun): string {
  if (run.error) return `error: ${run.error}`;
  const failed = run.scores.find((score) => !score.pass);
  if (failed) return `${failed.scorer}: ${failed.reason}`;
  return run.divergence?.message ?? "failed";
}

/** One report: each case run with pass or fail, and the failing check's message. */
function reportView(detail: EvalRunDetail): HTMLElement {
  const { run, report } = detail;
  return h(
    "div",
    { class: "eval-report", "data-run": run.id },
    h(
      "h4",
      {},
      `${report.name}: ${run.passed}/${run.runs} runs passed, ${run.casesPassed}/${run.cases} cases · ${when(run.createdAt)}`,
    ),
    h(
      "ul",
      { class: "eval-cases" },
      ...report.runs.map((caseRun) =>
        h(
          "li",
          {
            class: "eval-case",
            "data-case": caseRun.caseId,
            "data-pass": String(caseRun.pass),
          },
          h("strong", {}, caseRun.pass ? "pass" : "FAIL"),
          ` ${caseRun.caseId}${report.repeats > 1 ? ` #${caseRun.repeat + 1}` : ""} · ${caseRun.tools.join(" → ") || "no tools"}`,
          caseRun.pass ? null : h("p", { class: "eval-failure" }, failure(caseRun)),
        ),
      ),
    ),
  );
}

/** The list of runs, each a button that opens its report below the list. */
function runList(client: AgentScopeClient, runs: EvalRunInfo[]): HTMLElement {
  const shown = h("div", { class: "eval-report-slot", "aria-live": "polite" });
  const open = async (run: EvalRunInfo) => {
    try {
      shown.replaceChildren(
        reportView(await client.route("GET /v1/evals/runs/{id}", { params: { id: run.id } })),
      );
    } catch (error) {
      shown.replaceChildren(h("p", { class: "note" }, `Cannot read ${run.id}: ${(error as Error).message}`));
    }
  };
  return h(
    "div",
    {},
    h(
      "ul",
      { class: "eval-runs" },
      ...runs.map((run) =>
        h(
          "li",
          { class: "eval-run", "data-run": run.id, "data-failed": String(run.failed) },
          h(
            "button",
            { type: "button", onclick: () => open(run) },
            `${run.name}: ${run.passed} passed, ${run.failed} failed`,
          ),
          ` · ${when(run.createdAt)} · ${(run.durationMs / 1000).toFixed(2)} s`,
        ),
      ),
    ),
    shown,
  );
}

/**
 * The eval runs the service serves (GET /v1/evals/runs: the reports under the config's
 * `evals.reports`), newest first; a run opens its report. Without runs, the service's hint says
 * how to turn it on (the config key, then `agentscope eval … --out <reports>/<name>`).
 */
export async function evalRuns(client: AgentScopeClient): Promise<HTMLElement> {
  const section = h(
    "section",
    { class: "studio-section", "aria-label": "Eval runs" },
    h("h3", {}, "Eval runs and reports"),
  );
  try {
    const list = await client.route("GET /v1/evals/runs");
    if (list.runs.length === 0)
      section.append(
        h(
          "p",
          { class: "note studio-empty eval-runs-empty" },
          `No eval runs: ${list.hint ?? "no reports yet"}. Cases come from "Save as test case" under a reply, or the section above.`,
        ),
      );
    else section.append(runList(client, list.runs));
    if (list.truncated) section.append(h("p", { class: "note" }, "Only the newest runs are listed."));
  } catch (error) {
    section.append(
      h("p", { class: "note studio-empty" }, `Cannot list eval runs: ${(error as Error).message}`),
    );
  }
  return section;
}
