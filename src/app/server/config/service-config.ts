import { z } from "zod";
import { AgentScopeError, type ErrorType, formatPath } from "../../../message/index.js";
import { BUILTIN_TOOL_NAMES } from "../../../tool/builtin/index.js";
import { configIssueMessage, toolFieldMessage } from "./config-hints.js";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/**
 * A ChatModel instance (TypeScript configs), a spec string like `openai:gpt-4o-mini` (or
 * `openai:gpt-4o-mini@http://127.0.0.1:4010/v1`), or the same as an object with `baseURL` and
 * `apiKeyEnv` (the variable that holds the key).
 */
const ModelField = z.union([
  z.string().min(1),
  z.strictObject({
    provider: z.string().min(1),
    model: z.string().min(1),
    baseURL: z.url().optional(),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_]\w*$/, "an environment variable name")
      .optional(),
    contextSize: z.number().int().positive().optional(),
  }),
  z.custom<object>((v) => isObject(v) && typeof (v as { stream?: unknown }).stream === "function", {
    message: 'a model spec like "openai:gpt-4o-mini" or a ChatModel object',
  }),
]);

/** A built-in tool's name (the tool layer's list, so a new built-in tool needs no edit here) or a Tool object (TypeScript configs). */
const BUILTIN_TOOLS = BUILTIN_TOOL_NAMES;
const ToolField = z.union(
  [
    z.enum(BUILTIN_TOOLS),
    z.custom<object>((v) => isObject(v) && typeof (v as { call?: unknown }).call === "function"),
  ],
  // A bad name is told the built-in names (and the closest one), not just "Invalid input".
  { error: (issue) => toolFieldMessage(issue.input, BUILTIN_TOOLS) },
);

const McpServerField = z.union([
  z.strictObject({
    name: z.string().min(1),
    transport: z.literal("stdio"),
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
  }),
  z.strictObject({
    name: z.string().min(1),
    transport: z.enum(["http", "sse"]),
    url: z.url(),
    headers: z.record(z.string(), z.string()).optional(),
  }),
]);

const PermissionField = z.strictObject({
  mode: z.enum(["default", "accept_edits", "explore", "bypass", "dont_ask", "plan"]).optional(),
  /** Rules in string form, e.g. `Bash(git status:*)`, `Read(src/**)`, `mcp__github`. */
  allow: z.array(z.string()).optional(),
  ask: z.array(z.string()).optional(),
  deny: z.array(z.string()).optional(),
  /** Rules as strings (`"deny:Bash(rm:*)"`, allow without a prefix) or `{ toolName, ruleContent?, behavior }`. */
  rules: z
    .array(
      z.union([
        z.string(),
        z.strictObject({
          toolName: z.string(),
          ruleContent: z.string().optional(),
          behavior: z.enum(["allow", "deny", "ask"]).optional(),
        }),
      ]),
    )
    .optional(),
  workingDirectories: z.array(z.string()).optional(),
});

export const AgentConfigSchema = z.strictObject({
  name: z.string().regex(/^[\w.-]{1,64}$/, "letters, digits, _, . or - (at most 64)"),
  systemPrompt: z.string().optional(),
  model: ModelField,
  tools: z.array(ToolField).optional(),
  mcpServers: z.array(McpServerField).optional(),
  permission: PermissionField.optional(),
  /** Who may answer which asks (docs/permissions.md, "Approver policies"); first match wins. */
  approvers: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        tools: z.array(z.string().min(1)).optional(),
        rules: z.array(z.string().min(1)).optional(),
        users: z.array(z.string().min(1)).optional(),
        roles: z.array(z.string().min(1)).optional(),
        quorum: z.number().int().min(1).optional(),
        expiresAfterMs: z.number().int().min(1).optional(),
        onExpiry: z.enum(["deny", "approve"]).optional(),
      }),
    )
    .optional(),
  maxIters: z.number().int().positive().optional(),
  /** A paused call whose tool or agent changed since it paused (a redeploy): ask again (default) or continue. */
  onPauseChange: z.enum(["ask_again", "continue"]).optional(),
  /** Other configured agents this one may delegate to, each as a tool (see docs/multi-agent.md). */
  subagents: z
    .array(
      z.strictObject({
        agent: z.string().min(1),
        description: z.string().min(1),
        /** The tool's name (default: the agent's). */
        name: z
          .string()
          .regex(/^[\w-]{1,64}$/, "letters, digits, _ or - (at most 64)")
          .optional(),
      }),
    )
    .optional(),
  /**
   * Other configured agents this one may transfer the conversation to (a `handoff` tool): the agent
   * handed to answers the rest of the reply and the session's next turns (see docs/multi-agent.md).
   */
  handoffs: z.array(z.string().min(1)).min(1).optional(),
  /**
   * Sub-agents this agent may start while it works (`agent_spawn`, see docs/multi-agent.md): each
   * template names a configured agent (its system prompt, model, tools) and the permission it runs
   * with (default: that agent's, in dont_ask mode), never wider than the spawning session's.
   */
  spawn: z
    .strictObject({
      templates: z
        .array(
          z.strictObject({
            name: z.string().regex(/^[\w-]{1,64}$/, "letters, digits, _ or - (at most 64)"),
            description: z.string().min(1),
            agent: z.string().min(1),
            permission: PermissionField.optional(),
            canSpawn: z.boolean().optional(),
          }),
        )
        .min(1),
      /** Start a follow-up reply in the parent session when a background sub-agent ends after the reply did (default true). */
      followUp: z.boolean().optional(),
      limits: z
        .strictObject({
          maxDepth: z.number().int().positive().optional(),
          maxPerReply: z.number().int().positive().optional(),
          maxConcurrent: z.number().int().positive().optional(),
          maxPerSession: z.number().int().positive().optional(),
          maxTokensPerSession: z.number().int().positive().optional(),
          defaultTimeoutSeconds: z.number().min(0).max(600).optional(),
        })
        .optional(),
    })
    .optional(),
  /** Long-term memory for this agent (see docs/memory.md); `true` = semantic memory and notes. */
  memory: z
    .union([
      z.boolean(),
      z.strictObject({
        /** Learn facts and preferences after each reply and recall them as a hint (default true). */
        semantic: z.boolean().optional(),
        /** A `Memory` tool over the user's notes directory, kept in the state store (default true). */
        notes: z.boolean().optional(),
        /** Memories recalled per reply (default 5). */
        topK: z.number().int().min(0).max(50).optional(),
        /** Keep this agent's memories to itself instead of sharing them with the user's other agents. */
        perAgent: z.boolean().optional(),
      }),
    ])
    .optional(),
  /**
   * The session owner's knowledge bases this agent may search (see docs/rag.md): named bases (those
   * the user has; others are skipped) or "all" of them. Needs `knowledge` settings in the config.
   */
  knowledge: z
    .strictObject({
      bases: z.union([
        z.literal("all"),
        z
          .array(
            z
              .string()
              .regex(/^[\w.-]{1,64}$/, "a knowledge base name: letters, digits, _, . or - (at most 64)"),
          )
          .min(1, 'at least one knowledge base name, or "all"')
          .refine((names) => new Set(names).size === names.length, "knowledge base names must be unique"),
      ]),
      /** `agentic` (default): a search_knowledge tool; `static`: retrieved excerpts as a hint before each reply. */
      mode: z.enum(["agentic", "static"]).optional(),
      /** Excerpts per search (default 5). */
      topK: z.number().int().min(1).max(50).optional(),
      /** Drop hits scoring below this. */
      scoreThreshold: z.number().optional(),
    })
    .optional(),
});

const isEmbeddingModel = (v: unknown) =>
  isObject(v) &&
  typeof (v as { embed?: unknown }).embed === "function" &&
  typeof (v as { dimensions?: unknown }).dimensions === "number";
const isVectorStore = (v: unknown) => isObject(v) && typeof (v as { search?: unknown }).search === "function";

/** Where semantic memory lives (shared by every agent that has `memory` on). */
const MemorySettingsField = z.strictObject({
  /** An EmbeddingModel (TypeScript configs), or "hash" (offline, deterministic; for demos and tests). */
  embedding: z.union([
    z.literal("hash"),
    z.custom<object>(isEmbeddingModel, { message: 'an EmbeddingModel object or "hash"' }),
  ]),
  /** A rag VectorStore (TypeScript configs); default the service's state store (StateVectorStore). */
  vectorStore: z.custom<object>(isVectorStore, { message: "a VectorStore object" }).optional(),
  /** The model that extracts memories (default: the first memory-enabled agent's model). */
  model: ModelField.optional(),
});

/** Per-user knowledge bases (the /v1/knowledge-bases routes and agents' `knowledge`). */
const KnowledgeSettingsField = z.strictObject({
  /** An EmbeddingModel (TypeScript configs), or "hash" (offline, deterministic; for demos and tests). */
  embedding: z.union([
    z.literal("hash"),
    z.custom<object>(isEmbeddingModel, { message: 'an EmbeddingModel object or "hash"' }),
  ]),
  /**
   * A rag VectorStore for the chunks (TypeScript configs); default the service's state store
   * (StateVectorStore, one document per user: fine for small sets, use a real store for corpora).
   */
  vectorStore: z.custom<object>(isVectorStore, { message: "a VectorStore object" }).optional(),
  /** The collection every user's bases share (default `knowledge`). */
  collection: z.string().min(1).optional(),
  /** Largest uploaded file in bytes (default 20 MiB). */
  maxUploadBytes: z.number().int().positive().optional(),
});

/** A team served as one agent: the leader's settings plus a `team_assign` tool over the members. */
export const TeamConfigSchema = z.strictObject({
  name: z.string().regex(/^[\w.-]{1,64}$/, "letters, digits, _, . or - (at most 64)"),
  /** A configured agent whose model, prompt and tools lead the team. */
  leader: z.string().min(1),
  members: z.array(z.strictObject({ agent: z.string().min(1), description: z.string().min(1) })).min(1),
});

export const ServiceConfigSchema = z.strictObject({
  agents: z.array(AgentConfigSchema).min(1),
  /** Teams of configured agents, each served (and listed in /v1/agents) like an agent. */
  teams: z.array(TeamConfigSchema).optional(),
  /** `sqlite:./path.db` (default `.agentscope/state.db`), `redis://…`, `postgres://…`, `memory:`. */
  store: z.string().min(1).optional(),
  /**
   * Prefix of the store's SQL tables or Redis keys (default `agentscope_` / `agentscope:`); two
   * deployments sharing one database or Redis need different ones.
   */
  storePrefix: z
    .string()
    .regex(/^[\w:.-]{1,40}$/, "1-40 letters, digits, _, :, . or -")
    .optional(),
  /** Bearer token → user; merged with AGENTSCOPE_TOKENS. */
  tokens: z.record(z.string().min(1), z.string().min(1)).optional(),
  /** User → roles, for the agents' approver policies; merged with the roles AGENTSCOPE_TOKENS gives. */
  roles: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
  server: z
    .strictObject({
      port: z.number().int().min(0).max(65535).optional(),
      host: z.string().min(1).optional(),
      maxBodyBytes: z.number().int().positive().optional(),
      heartbeatMs: z.number().int().positive().optional(),
      maxConcurrentRuns: z.number().int().positive().optional(),
      /** Replies at once per user (default a quarter of maxConcurrentRuns); more get 429 + Retry-After. */
      maxRunsPerUser: z.number().int().positive().optional(),
      /** Wait for a free run slot (up to queueTimeoutMs, default 30 s) instead of answering 429. */
      queue: z.boolean().optional(),
      queueTimeoutMs: z.number().int().positive().optional(),
      /** Host names the server answers to besides its bound address and the loopback names; "*" = any. */
      allowedHosts: z.union([z.literal("*"), z.array(z.string().min(1))]).optional(),
      /** How long a run's lease lives without renewal (default 15 s): a dead run's reply is closed after it. */
      lockTtlMs: z.number().int().min(300).optional(),
      /** How often a follower checks that the run it follows is alive (default 5 s). */
      recoverCheckMs: z.number().int().positive().optional(),
      /** After closing a cut-off reply, continue it with a new reply (default false). */
      resumeOnRecovery: z.boolean().optional(),
      /** Event streams (SSE) open at once per user on this replica (default 64); more get 429 + Retry-After. */
      maxStreamsPerUser: z.number().int().positive().optional(),
      /** A stream whose client takes nothing for this long is dropped (default 30 s); it reconnects with Last-Event-ID. */
      writeTimeoutMs: z.number().int().positive().optional(),
      /** Bytes of frames a stream may have waiting in the server for its client (default 1 MiB). */
      maxUnsentBytes: z.number().int().min(1024).optional(),
      /** How often the recovery sweeper closes runs whose lease expired, watched or not (default 5 s). */
      sweepEveryMs: z.number().int().min(50).optional(),
    })
    .optional(),
  /**
   * Checkpoints for rewind, fork and edit-and-resend (docs/time-travel.md), kept on the store:
   * `true`, or `{ retention }` to bound them. Off by default under serve; on by default in chat.
   */
  checkpoints: z
    .union([
      z.boolean(),
      z.strictObject({
        retention: z
          .strictObject({
            maxCheckpoints: z.number().int().positive().optional(),
            maxAgeMs: z.number().int().positive().optional(),
            maxBytes: z.number().int().positive().optional(),
          })
          .optional(),
      }),
    ])
    .optional(),
  /**
   * Spend budgets for every agent (docs/tracing-and-budgets.md): limits in dollars or tokens per reply,
   * session, user or sub-agent tree, over a day or a month; counted on the service's store (every
   * replica on it shares the counts) unless `counter` is "memory" (this process only).
   */
  budget: z
    .strictObject({
      limits: z
        .array(
          z
            .strictObject({
              scope: z.enum(["reply", "session", "user", "tree"]),
              unit: z.enum(["usd", "tokens"]),
              period: z.enum(["day", "month"]).optional(),
              soft: z.number().nonnegative().optional(),
              hard: z.number().nonnegative().optional(),
            })
            .refine((limit) => limit.soft !== undefined || limit.hard !== undefined, {
              message: "a limit needs `soft`, `hard` or both",
            }),
        )
        .min(1, 'at least one limit, e.g. { scope: "user", unit: "usd", period: "day", hard: 5 }'),
      reservePerCall: z
        .strictObject({
          usd: z.number().nonnegative().optional(),
          tokens: z.number().nonnegative().optional(),
        })
        .optional(),
      counter: z.enum(["store", "memory"]).optional(),
    })
    .optional(),
  /** Origins whose pages may call the API from a browser, e.g. ["https://app.example"]. */
  cors: z.strictObject({ origins: z.array(z.url()) }).optional(),
  events: z.strictObject({ maxPerSession: z.number().int().positive().optional() }).optional(),
  memory: MemorySettingsField.optional(),
  /** Per-user knowledge bases; their list is kept in the state store (survives restarts). */
  knowledge: KnowledgeSettingsField.optional(),
  /**
   * Eval reports the studio shows (GET /v1/evals/runs, docs/evals.md): the directory `agentscope
   * eval --out <reports>/<name>` writes into (relative paths: from the working directory).
   */
  evals: z
    .strictObject({
      reports: z.string().min(1, 'the directory of eval reports, e.g. ".agentscope/eval"'),
    })
    .optional(),
  /**
   * A workspace per session (or per user) for the agents' tools; see docs/workspaces.md. On by
   * default, even without this section: Bash in a bubblewrap sandbox where it can run.
   */
  workspaces: z
    .strictObject({
      /**
       * Workspaces live in <dataDir>/workspaces (relative paths: from the working directory). Default:
       * the sqlite store's directory (.agentscope), a temporary directory for the memory store.
       */
      dataDir: z.string().min(1).optional(),
      scope: z.enum(["session", "user"]).optional(),
      /**
       * Run Bash in a bubblewrap sandbox over the session's workspace. Default: when bubblewrap can
       * run here (else a warning at start); true or a policy: required (the server will not start
       * without it); false: Bash runs on the host, in the workspace.
       */
      sandbox: z
        .union([
          z.boolean(),
          z.strictObject({
            network: z.boolean().optional(),
            readOnlyPaths: z.array(z.string()).optional(),
            writablePaths: z.array(z.string()).optional(),
            envAllowList: z.array(z.string()).optional(),
            env: z.record(z.string(), z.string()).optional(),
            hiddenFiles: z.array(z.string()).optional(),
            hiddenDirectories: z.array(z.string()).optional(),
            cpuSeconds: z.number().int().positive().optional(),
            memoryBytes: z.number().int().positive().optional(),
            maxFileBytes: z.number().int().positive().optional(),
            maxProcesses: z.number().int().positive().nullable().optional(),
          }),
        ])
        .optional(),
    })
    .optional(),
});

export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type TeamConfig = z.infer<typeof TeamConfigSchema>;
export type ServiceConfig = z.infer<typeof ServiceConfigSchema>;

/** Thrown for a config that does not fit; the message names the file and the bad field. */
export class ConfigError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_request";
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Validates a service config, naming the first bad field (`agents[0].model: …`). */
export function parseServiceConfig(value: unknown, source = "config"): ServiceConfig {
  const result = ServiceConfigSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new ConfigError(
    `${source}: ${formatPath(issue.path) || "(root)"}: ${configIssueMessage(issue, ServiceConfigSchema)}`,
  );
}
