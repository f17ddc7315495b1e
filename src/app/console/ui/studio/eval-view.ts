import type { AgentScopeClient, SessionEvalCase } from "../../../../client/index.js";
import { h } from "../dom.js";
import { saveBlob } from "../save-blob.js";
import { evalRuns } from "./eval-runs.js";

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
 * The evals page: the eval runs the service serves with their reports (eval-runs.ts), and, with a
 * session open, the session recorded as an eval case (GET /v1/sessions/:id/eval-case, the same case
 * "Save as test case" records; docs/evals.md): its facts and JSONL to download for `agentscope eval`.
 */
export async function evalView(
  client: AgentScopeClient,
  sessionId: string | undefined,
): Promise<HTMLElement> {
  const runs = await evalRuns(client);
  if (!sessionId)
    return h(
      "div",
      { class: "eval-view" },
      runs,
      h("p", { class: "note" }, "Start a chat (or open one) to record it as an eval case."),
    );
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
      h(
        "p",
        { class: "note" },
        "Save cases into a dataset and run ",
        h("code", {}, "agentscope eval cases.jsonl --agent ./agent.ts --out .agentscope/eval/base"),
        ": it scores the runs and writes report.html, result.json and junit.xml there; with ",
        h("code", {}, 'evals: { reports: ".agentscope/eval" }'),
        " in the service config the run is listed above.",
      ),
    ),
    runs,
  );
}
