import type { AgentScopeClient, SessionEvalCase } from "../../../../client/index.js";
import { h } from "../dom.js";
import { saveBlob } from "../save-blob.js";

type Plain = Record<string, unknown>;

const count = (value: unknown) => (Array.isArray(value) ? value.length : 0);

/** What a recorded case holds, in a few facts. */
function caseFacts(recorded: SessionEvalCase): HTMLElement {
  const evalCase = recorded.case;
  const input = (evalCase.input as Plain | undefined) ?? {};
  const turns = ((evalCase.recording as Plain | undefined)?.turns as Plain[] | undefined) ?? [];
  const tools = turns.flatMap((turn) =>
    ((turn.toolCalls as Plain[] | undefined) ?? []).map((c) => String(c.name)),
  );
  const fact = (name: string, value: string) => [h("dt", {}, name), h("dd", {}, value)];
  return h(
    "dl",
    { class: "studio-facts eval-facts" },
    ...fact("case", String(evalCase.id)),
    ...fact("replies", String(1 + count(input.followUps))),
    ...fact("recorded model turns", String(turns.length)),
    ...fact("tool sequence", tools.join(" → ") || "none"),
    ...fact("answers to confirmations", String(count(evalCase.confirmations))),
    ...fact("expectations", String(count(evalCase.expect))),
  );
}

/**
 * The evals page: this session recorded as an eval case (GET /v1/sessions/:id/eval-case, the same
 * case "Save as test case" records; docs/evals.md), its facts and JSONL to download, and how to
 * run a dataset of such cases into reports with `agentscope eval`. The service runs no evals
 * itself, so runs and their reports (report.html, result.json, junit.xml) live where the CLI wrote them.
 */
export async function evalView(client: AgentScopeClient, sessionId: string): Promise<HTMLElement> {
  let recorded: SessionEvalCase | undefined;
  let why = "";
  try {
    recorded = await client.sessionEvalCase(sessionId);
  } catch (error) {
    why = (error as Error).message;
  }
  const download = recorded
    ? h(
        "button",
        {
          type: "button",
          class: "eval-download",
          onclick: () =>
            saveBlob(new Blob([recorded.jsonl], { type: "application/x-ndjson" }), recorded.fileName),
        },
        `Download ${recorded.fileName}`,
      )
    : null;
  return h(
    "div",
    { class: "eval-view" },
    h(
      "section",
      { class: "studio-section", "aria-label": "This session as a case" },
      h("h3", {}, "This session as an eval case"),
      recorded ? caseFacts(recorded) : h("p", { class: "note studio-empty" }, `Not recordable now: ${why}`),
      download,
    ),
    h(
      "section",
      { class: "studio-section", "aria-label": "Eval runs" },
      h("h3", {}, "Eval runs and reports"),
      h(
        "p",
        { class: "note studio-empty" },
        'No eval runs on this server: runs happen in the CLI. Save cases (this one, or "Save as test case" under a reply) into a dataset and run ',
        h("code", {}, "agentscope eval cases.jsonl --agent ./agent.ts --out .agentscope/eval/base"),
        ': it replays each recording, scores the runs and writes report.html, result.json and junit.xml there; see docs/evals.md, "Runs and reports".',
      ),
    ),
  );
}
