/** What `agentscope init` fills into its files. */
export interface ProjectVariables {
  /** The new package's name (from its folder). */
  name: string;
  /** Version ranges for the package.json: agentscope itself, zod, tsx, typescript, @types/node. */
  versions: Record<"agentscope" | "zod" | "tsx" | "typescript" | "@types/node", string>;
}

const packageJson = ({ name, versions }: ProjectVariables) =>
  `${JSON.stringify(
    {
      name,
      version: "0.1.0",
      private: true,
      type: "module",
      engines: { node: ">=20.12" },
      scripts: {
        start: "agentscope serve",
        chat: "agentscope chat",
        test: "tsx --test test/*.test.ts",
        typecheck: "tsc --noEmit",
      },
      dependencies: { agentscope: versions.agentscope, zod: versions.zod },
      devDependencies: {
        "@types/node": versions["@types/node"],
        tsx: versions.tsx,
        typescript: versions.typescript,
      },
    },
    null,
    2,
  )}\n`;

const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2023"],
      types: ["node"],
      strict: true,
      noEmit: true,
      isolatedModules: true,
      verbatimModuleSyntax: true,
    },
    include: ["*.ts", "tools", "test"],
  },
  null,
  2,
)}\n`;

const CONFIG = `// The agents \`npx agentscope serve\` and \`npx agentscope chat\` run (this file name is found by itself).
// Every option (store, tokens, limits, MCP servers, memory, knowledge): agentscope's docs/service.md.
import { existsSync } from "node:fs";
import type { ServiceConfig } from "agentscope/app";
import { chooseModel } from "./model.js";
import { localTime } from "./tools/local-time.js";

// Provider keys from .env (copy .env.example), when there is one.
if (existsSync(".env")) process.loadEnvFile(".env");

export default {
  agents: [
    {
      name: "assistant",
      systemPrompt: "You are a concise assistant. Use local_time for questions about the time somewhere.",
      model: chooseModel(),
      // Your tools, and built-in ones by name: "Read", "Glob", "Grep", "Write", "Edit", "Bash".
      tools: [localTime],
    },
  ],
} satisfies ServiceConfig;
`;

const MODEL = `import type { ChatModel, ChatOptions, Msg } from "agentscope";
import { modelFromEnvironment } from "agentscope/model";
import { ScriptedModel, type ScriptedTurn } from "agentscope/testing";

/**
 * A real provider when one is configured: AGENTSCOPE_MODEL (e.g. "anthropic:claude-sonnet-4-5"), or the
 * first key set of OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, DASHSCOPE_API_KEY, OLLAMA_HOST.
 * Without one, an offline stand-in, so the project runs before you have a key.
 */
export function chooseModel(env: NodeJS.ProcessEnv = process.env): ChatModel {
  return modelFromEnvironment(env) ?? new OfflineModel();
}

/** The offline stand-in's turn: ask local_time about the time zone the user named (UTC if none), then report it. */
export function offlineTurn(messages: Msg[]): ScriptedTurn {
  // The reply so far is the last message: it holds this reply's tool calls and their results.
  const reply = messages.at(-1);
  const result = reply?.role === "assistant" && reply.content.findLast((block) => block.type === "tool_result");
  if (result) return { text: \`(offline model) \${typeof result.output === "string" ? result.output : "done"}\` };
  const question = messages.findLast((message) => message.role === "user");
  const asked = question?.content.map((block) => (block.type === "text" ? block.text : "")).join(" ") ?? "";
  const timeZone = /\\b[A-Z][A-Za-z]+\\/[A-Za-z_]+\\b/.exec(asked)?.[0] ?? "UTC";
  return { toolCalls: [{ name: "local_time", input: { timeZone } }] };
}

/** A ScriptedModel that never runs out: every call plays the turn that fits the conversation. */
class OfflineModel extends ScriptedModel {
  constructor() {
    super([], { name: "offline" });
  }

  override stream(messages: Msg[], options?: ChatOptions) {
    return new ScriptedModel([offlineTurn(messages)], { name: this.name }).stream(messages, options);
  }
}
`;

const TOOL = `import { functionTool } from "agentscope";
import { z } from "zod";

/** A custom tool: the time in a time zone. Read-only, so it runs without asking for approval. */
export const localTime = functionTool({
  name: "local_time",
  description: "The current date and time in an IANA time zone, e.g. Europe/Paris or America/New_York.",
  input: z.object({ timeZone: z.string().describe("an IANA time zone name") }),
  readOnly: true,
  execute: async ({ timeZone }) => {
    // An unknown zone throws a RangeError: the model gets it as an error result and can retry.
    const time = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "short", timeZone });
    return \`It is \${time.format(new Date())} in \${timeZone}.\`;
  },
});
`;

const TEST = `// Tests with a scripted model: no network, no key. Run: npm test
import assert from "node:assert/strict";
import { test } from "node:test";
import { Agent, blocksOf, textOf, userMsg } from "agentscope";
import { ScriptedModel } from "agentscope/testing";
import { chooseModel } from "../model.js";
import { localTime } from "../tools/local-time.js";

test("the agent calls local_time and answers from its result", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "local_time", input: { timeZone: "Asia/Tokyo" } }] },
    { text: "It is evening in Tokyo." },
  ]);
  const agent = new Agent({ name: "assistant", systemPrompt: "Be brief.", model, toolkit: [localTime] });
  const reply = await agent.reply(userMsg("What time is it in Asia/Tokyo?"));
  assert.equal(textOf(reply), "It is evening in Tokyo.");
  const [result] = blocksOf(reply, "tool_result");
  assert.equal(result?.state, "success");
  assert.match(String(result?.output), /in Asia\\/Tokyo\\.$/);
  // The model's second call saw the tool's result.
  assert.equal(model.calls.length, 2);
});

test("an unknown time zone comes back to the model as an error result", async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ name: "local_time", input: { timeZone: "Mars/Olympus" } }] },
    { text: "That zone does not exist." },
  ]);
  const agent = new Agent({ name: "assistant", model, toolkit: [localTime] });
  const reply = await agent.reply(userMsg("Time on Mars/Olympus?"));
  assert.equal(blocksOf(reply, "tool_result")[0]?.state, "error");
});

test("without a provider key the config's model runs offline", async () => {
  const agent = new Agent({ name: "assistant", model: chooseModel({}), toolkit: [localTime] });
  const reply = await agent.reply(userMsg("What time is it in Europe/Paris?"));
  assert.match(textOf(reply), /^\\(offline model\\) It is .* in Europe\\/Paris\\.$/);
});
`;

const ENV_EXAMPLE = `# Copy to .env and set one provider; without any, the agents run on an offline scripted model.
OPENAI_API_KEY=
# ANTHROPIC_API_KEY=
# GEMINI_API_KEY=
# DASHSCOPE_API_KEY=
# OLLAMA_HOST=http://127.0.0.1:11434
# Or name the model (and an OpenAI-compatible server):
# AGENTSCOPE_MODEL=openai:gpt-4o-mini
# AGENTSCOPE_BASE_URL=http://127.0.0.1:4010/v1
# Bearer tokens for the service, token:user pairs (without them it binds 127.0.0.1 only):
# AGENTSCOPE_TOKENS=t1:alice
`;

const GITIGNORE = "node_modules/\n.env\n.agentscope/\n";

const readme = ({ name }: ProjectVariables) => `# ${name}

An agent project made by \`npx agentscope init\`.

\`\`\`sh
npm install
npm test              # the agent and its tool on a scripted model (offline)
npx agentscope chat   # talk to it in the terminal
npx agentscope serve  # HTTP + SSE service and web console at http://127.0.0.1:8787
\`\`\`

On Node 20, \`serve\` keeps its sessions in SQLite through better-sqlite3: \`npm install
better-sqlite3\` once (it says so if it is missing). Without a provider key the agent runs on an
offline stand-in (\`model.ts\`); copy \`.env.example\` to \`.env\` and set a key for a real model. The
agents are in \`agentscope.config.ts\`, the custom tool in \`tools/local-time.ts\`.
`;

/** The files of a new project, by path relative to its folder. */
export function projectFiles(variables: ProjectVariables): Record<string, string> {
  return {
    "package.json": packageJson(variables),
    "tsconfig.json": TSCONFIG,
    "agentscope.config.ts": CONFIG,
    "model.ts": MODEL,
    "tools/local-time.ts": TOOL,
    "test/agent.test.ts": TEST,
    ".env.example": ENV_EXAMPLE,
    ".gitignore": GITIGNORE,
    "README.md": readme(variables),
  };
}
