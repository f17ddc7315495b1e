import { z } from "zod";
import { formatPath } from "../../../message/index.js";

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null;

/** A ChatModel instance (TypeScript configs) or a spec string like `openai:gpt-4o-mini`. */
const ModelField = z.union([
  z.string().min(1),
  z.custom<object>((v) => isObject(v) && typeof (v as { stream?: unknown }).stream === "function", {
    message: 'a model spec like "openai:gpt-4o-mini" or a ChatModel object',
  }),
]);

/** A built-in tool name (Bash, Read, Write, Edit, Glob, Grep) or a Tool object (TypeScript configs). */
const ToolField = z.union([
  z.enum(["Bash", "Read", "Write", "Edit", "Glob", "Grep"]),
  z.custom<object>((v) => isObject(v) && typeof (v as { call?: unknown }).call === "function", {
    message: "a built-in tool name (Bash, Read, Write, Edit, Glob, Grep) or a Tool object",
  }),
]);

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
  mode: z.enum(["default", "accept_edits", "explore", "bypass", "dont_ask"]).optional(),
  /** Rules in string form, e.g. `Bash(git status:*)`, `Read(src/**)`, `mcp__github`. */
  allow: z.array(z.string()).optional(),
  ask: z.array(z.string()).optional(),
  deny: z.array(z.string()).optional(),
  workingDirectories: z.array(z.string()).optional(),
});

export const AgentConfigSchema = z.strictObject({
  name: z.string().regex(/^[\w.-]{1,64}$/, "letters, digits, _, . or - (at most 64)"),
  systemPrompt: z.string().optional(),
  model: ModelField,
  tools: z.array(ToolField).optional(),
  mcpServers: z.array(McpServerField).optional(),
  permission: PermissionField.optional(),
  maxIters: z.number().int().positive().optional(),
});

export const ServiceConfigSchema = z.strictObject({
  agents: z.array(AgentConfigSchema).min(1),
  /** `sqlite:./path.db` (default `.agentscope/state.db`), `redis://…`, `postgres://…`, `memory:`. */
  store: z.string().min(1).optional(),
  /** Bearer token → user; merged with AGENTSCOPE_TOKENS. */
  tokens: z.record(z.string().min(1), z.string().min(1)).optional(),
  server: z
    .strictObject({
      port: z.number().int().min(0).max(65535).optional(),
      host: z.string().min(1).optional(),
      maxBodyBytes: z.number().int().positive().optional(),
      heartbeatMs: z.number().int().positive().optional(),
      maxConcurrentRuns: z.number().int().positive().optional(),
      /** Host names the server answers to besides its bound address and the loopback names; "*" = any. */
      allowedHosts: z.union([z.literal("*"), z.array(z.string().min(1))]).optional(),
    })
    .optional(),
  /** Origins whose pages may call the API from a browser, e.g. ["https://app.example"]. */
  cors: z.strictObject({ origins: z.array(z.url()) }).optional(),
  events: z.strictObject({ maxPerSession: z.number().int().positive().optional() }).optional(),
});

export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type ServiceConfig = z.infer<typeof ServiceConfigSchema>;

/** Thrown for a config that does not fit; the message names the file and the bad field. */
export class ConfigError extends Error {
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
  throw new ConfigError(`${source}: ${formatPath(issue.path) || "(root)"}: ${issue.message}`);
}
