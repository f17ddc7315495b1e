import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import {
  caseFromTrace,
  type EvalCase,
  evalRecorder,
  loadDataset,
  parseDataset,
  runCase,
  saveDataset,
} from "../../src/eval/index.js";
import { userMsg } from "../../src/message/index.js";
import { jsonlTraceMiddleware } from "../../src/trace/index.js";
import { notesAgentOptions, notesFactory, promptFollowingModel } from "./notes-agent.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "eval-dataset-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const YAML = `
cases:
  - id: todo
    description: reads the todo file and notes it
    tags: [notes]
    input: note what todo.txt says
    confirmations:
      - tool: write_note
        confirmed: true
    expect:
      - type: tool_called
        tool: read_file
        args: { path: todo.txt }
      - type: text_contains
        text: milk
        weight: 2
  - id: plan
    input:
      messages:
        - role: user
          content: note what plan.txt says
      followUps: ["thanks"]
      files: { "notes/a.md": "# a" }
`;

describe("datasets", () => {
  it("reads YAML: text input, messages, follow-ups, files, confirmations and expectations", async () => {
    const cases = await parseDataset(YAML, "yaml", "cases.yaml");
    expect(cases.map((c) => c.id)).toEqual(["todo", "plan"]);
    const [todo, plan] = cases as [EvalCase, EvalCase];
    expect(todo.input.messages).toMatchObject([
      { role: "user", content: [{ type: "text", text: "note what todo.txt says" }] },
    ]);
    expect(todo.confirmations).toEqual([{ tool: "write_note", confirmed: true }]);
    expect(todo.expect).toEqual([
      { type: "tool_called", tool: "read_file", args: { path: "todo.txt" } },
      { type: "text_contains", text: "milk", weight: 2 },
    ]);
    expect(plan.input.followUps).toMatchObject([[{ role: "user", content: [{ text: "thanks" }] }]]);
    expect(plan.input.files).toEqual({ "notes/a.md": "# a" });
  });

  it("JSONL and YAML files round-trip through saveDataset and loadDataset", async () => {
    const cases = await parseDataset(YAML, "yaml");
    for (const name of ["cases.jsonl", "cases.yaml", "cases.json"]) {
      const file = join(dir, name);
      await saveDataset(file, cases);
      expect(await loadDataset(file)).toEqual(cases);
    }
    expect((await readFile(join(dir, "cases.jsonl"), "utf8")).trim().split("\n")).toHaveLength(2);
  });

  it("bad input names the file, line or case and the field", async () => {
    await expect(parseDataset('{"id":"a","input":"x"}\n{"id":"b"}\n', "jsonl", "d.jsonl")).rejects.toThrow(
      "invalid eval case (d.jsonl:2): input: ",
    );
    await expect(parseDataset('{"id":"a","input":"x"}\n{oops\n', "jsonl", "d.jsonl")).rejects.toThrow(
      /^d\.jsonl:2: not JSON/,
    );
    await expect(parseDataset("- id: a\n  input: x\n  expct: []\n", "yaml", "d.yaml")).rejects.toThrow(
      /d\.yaml case 1.*expct/,
    );
    await expect(
      parseDataset("- id: a\n  input: x\n- id: a\n  input: y\n", "yaml", "d.yaml"),
    ).rejects.toThrow('two cases have the id "a"');
    await expect(
      parseDataset(
        '[{"id":"a","input":{"messages":[{"role":"system","content":[{"type":"tool_call","name":"x","input":"{}","state":"pending"}]}]}}]',
        "json",
      ),
    ).rejects.toThrow(/system message cannot hold a "tool_call" block/);
    await expect(loadDataset(join(dir, "cases.txt"))).rejects.toThrow(/unknown format "\.txt"/);
    await expect(loadDataset(join(dir, "missing.jsonl"))).rejects.toThrow(
      /cannot read dataset .*missing\.jsonl/,
    );
  });

  it("a JSONL trace written by the trace middleware becomes a case that replays green", async () => {
    const trace = join(dir, "session.jsonl");
    const agent = new Agent({
      ...notesAgentOptions(),
      model: promptFollowingModel(),
      middlewares: [jsonlTraceMiddleware({ file: trace }), evalRecorder()],
      permission: { rules: ["write_note"] },
    });
    await agent.reply(userMsg("note what plan.txt says"));
    const evalCase = await caseFromTrace(trace, { id: "plan" });
    expect(evalCase.recording!.turns.map((t) => t.request?.tools)).toEqual([
      ["read_file", "search", "write_note"],
      ["read_file", "search", "write_note"],
      ["read_file", "search", "write_note"],
    ]);
    const run = await runCase(
      evalCase,
      (setup) =>
        new Agent({ ...notesAgentOptions(), model: setup.model(), permission: { rules: ["write_note"] } }),
    );
    expect(run.divergence).toBeUndefined();
    // Without the allow rule the agent asks where the recording ran the call: a decision divergence.
    const strict = await runCase({ ...evalCase, confirmations: [{ confirmed: true }] }, notesFactory());
    expect(strict.divergence).toMatchObject({ turn: 2, kind: "decision", expected: "allow", actual: "ask" });
    expect(strict.divergence!.message).toBe(
      'turn 2: the permission decision for write_note({"text":"ship evals"}) was ask; the recording has allow',
    );
    // A trace without evalRecorder needs the inputs; a wrong count says so.
    await writeFile(
      join(dir, "plain.jsonl"),
      (await readFile(trace, "utf8"))
        .split("\n")
        .filter((l) => !l.includes("eval.request"))
        .join("\n"),
    );
    await expect(caseFromTrace(join(dir, "plain.jsonl"), { id: "p" })).rejects.toThrow(
      /user input of reply 1 is not in the trace/,
    );
    await expect(caseFromTrace(join(dir, "plain.jsonl"), { id: "p", inputs: ["a", "b"] })).rejects.toThrow(
      /1 replies but 2 inputs/,
    );
    const plain = await caseFromTrace(join(dir, "plain.jsonl"), {
      id: "p",
      inputs: ["note what plan.txt says"],
    });
    expect(
      (
        await runCase(
          plain,
          (setup) =>
            new Agent({
              ...notesAgentOptions(),
              model: setup.model(),
              permission: { rules: ["write_note"] },
            }),
        )
      ).divergence,
    ).toBeUndefined();
  });
});
