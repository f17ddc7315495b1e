import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";
import { type CheckpointRetention, DEFAULT_SQLITE_PATH } from "../../state/index.js";
import { createApp, type ServerErrorListener } from "./app.js";
import { createBackend } from "./backend/create-backend.js";
import type { BackendOptions } from "./backend/types.js";
import {
  attachWorkspaces,
  openServiceWorkspaces,
  type ServiceWorkspaces,
} from "./config/attach-workspaces.js";
import { buildAgents } from "./config/build-agents.js";
import { attachBudget, budgetOfConfig, type ServiceBudget } from "./config/build-budget.js";
import { buildCheckpoints } from "./config/build-checkpoints.js";
import { attachKnowledge, knowledgeServiceOf } from "./config/build-knowledge.js";
import { attachMemory } from "./config/build-memory.js";
import { wireMultiAgent } from "./config/build-multiagent.js";
import type { ServiceConfig } from "./config/service-config.js";
import { parseTokenRoles, parseTokens, type ServiceVariables } from "./http/auth.js";
import { EvalReports } from "./http/eval-reports.js";
import type { KnowledgeService } from "./http/knowledge-service.js";
import { mountedRoutes } from "./mounted-routes.js";
import type { ServiceLog } from "./runtime/service-log.js";
import { ServiceRuntime } from "./runtime/service-runtime.js";
import type { WorkspaceManagerOptions } from "./workspace-manager.js";

export interface StartServerOptions {
  config: ServiceConfig;
  /** Overrides config.server.port; default 8787 (0 = any free port). */
  port?: number;
  /** Overrides config.server.host; default 127.0.0.1. Without tokens only 127.0.0.1 is allowed. */
  host?: string;
  /** Overrides config.store. */
  store?: string;
  /** Token pairs, as AGENTSCOPE_TOKENS (default: process.env.AGENTSCOPE_TOKENS). */
  tokensEnv?: string;
  /** Table/key prefix, lock TTL and retention of the store backend (config.events.maxPerSession wins). */
  backend?: BackendOptions;
  /**
   * A workspace per session (or user) under a data directory (overrides config.workspaces; without
   * `sandbox`, Bash is sandboxed where bubblewrap runs, as for the config); `false`: none, the tools
   * work in this process's directory. Default: config.workspaces, on even when absent. See
   * docs/workspaces.md.
   */
  workspaces?: WorkspaceManagerOptions | false;
  /** Skip the AG-UI and console mounts. */
  withoutOptionalRoutes?: boolean;
  /** Per-user knowledge bases under /v1/knowledge-bases (see docs/rag.md); overrides config.knowledge. */
  knowledge?: KnowledgeService;
  /** Where the runtime reports fenced runs and what its recovery sweeper closed (default: nowhere). */
  log?: ServiceLog;
  /** Told of every 5xx answer with the error behind it (see `CreateAppOptions.onServerError`). */
  onServerError?: ServerErrorListener;
  /**
   * Checkpoints for rewind and fork (docs/time-travel.md), kept beside the state on the same store
   * (SQLite, Redis, PostgreSQL, memory); with per-session workspaces they hold the files too. Default:
   * the config's `checkpoints` key (off when absent).
   */
  checkpoints?: { retention?: CheckpointRetention } | false;
  /**
   * Spend budgets for every agent, readable at GET /v1/budget (docs/tracing-and-budgets.md); overrides
   * the config's `budget` key.
   */
  budget?: ServiceBudget;
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  /** What a CLI should tell the user (e.g. that the server is local-only without tokens). */
  notices: string[];
  /** What a CLI must warn about (e.g. that the tools are not sandboxed, and how to fix it). */
  warnings: string[];
  /** What keeps the agents' tools in, e.g. "tools contained: bubblewrap sandbox per session". */
  containment: string;
  runtime: ServiceRuntime;
  /** The per-user knowledge bases served under /v1/knowledge-bases, when configured. */
  knowledge?: KnowledgeService;
  app: Hono<{ Variables: ServiceVariables }>;
  close(): Promise<void>;
}

const LOOPBACK = "127.0.0.1";
const ANY_ADDRESS = new Set(["0.0.0.0", "::", "[::]"]);

/**
 * The Host names to accept: the bound address plus configured names. Bound to every interface (which
 * needs tokens) with no names configured, any Host is accepted; the notice says how to narrow it.
 */
function allowedHosts(host: string, configured: readonly string[] | "*" | undefined, notices: string[]) {
  if (configured === "*") return "*";
  if (ANY_ADDRESS.has(host) && configured === undefined) {
    notices.push(
      `listening on ${host}: any Host header is accepted; set server.allowedHosts to the names clients use`,
    );
    return "*";
  }
  return [host, ...(configured ?? [])];
}

/** Memory, knowledge bases, sub-agents and teams, and workspaces, attached to the built agents. */
async function attachServices(
  options: StartServerOptions,
  agents: Awaited<ReturnType<typeof buildAgents>>,
  backend: Awaited<ReturnType<typeof createBackend>>,
  storeUrl: string,
) {
  const { config } = options;
  const memory = await attachMemory(config.agents, agents, config.memory, backend);
  const knowledge = options.knowledge ?? knowledgeServiceOf(config.knowledge, backend);
  attachKnowledge(config.agents, agents, knowledge, backend.sessions);
  wireMultiAgent(config.agents, config.teams, agents);
  const budget = options.budget
    ? attachBudget(agents, options.budget, backend.sessions)
    : config.budget
      ? attachBudget(
          agents,
          await budgetOfConfig(config.budget, storeUrl, config.storePrefix),
          backend.sessions,
          true,
        )
      : undefined;
  if (options.workspaces === false) return { memory, knowledge, budget, agents, opened: undefined };
  const override = options.workspaces ? { override: options.workspaces } : {};
  const opened: ServiceWorkspaces = await openServiceWorkspaces({
    config: config.workspaces,
    storeUrl,
    ...override,
  }).catch(async (error) => {
    await budget?.close();
    throw error;
  });
  return {
    memory,
    knowledge,
    budget,
    opened,
    agents: attachWorkspaces(agents, opened.manager, backend.sessions),
  };
}

/** `build()`, running `close` first when it throws. */
async function closingOnError<T>(build: () => T, close: () => Promise<void>): Promise<T> {
  try {
    return build();
  } catch (error) {
    await close();
    throw error;
  }
}

/** Builds the agents, opens the store backend and listens. Library code: prints nothing. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const { config } = options;
  const tokenText = options.tokensEnv ?? process.env.AGENTSCOPE_TOKENS;
  const tokens = parseTokens(tokenText);
  for (const [token, user] of Object.entries(config.tokens ?? {})) tokens.set(token, user);
  const roles = parseTokenRoles(tokenText);
  for (const [user, list] of Object.entries(config.roles ?? {}))
    roles.set(user, [...new Set([...(roles.get(user) ?? []), ...list])]);
  const notices: string[] = [];
  let host = options.host ?? config.server?.host ?? LOOPBACK;
  if (tokens.size === 0 && host !== LOOPBACK) {
    notices.push(
      `no tokens are configured, so the server listens on ${LOOPBACK} only (not ${host}); set AGENTSCOPE_TOKENS=token:user to open it`,
    );
    host = LOOPBACK;
  } else if (tokens.size === 0) {
    notices.push(
      `no tokens are configured: listening on ${LOOPBACK} only, every request acts as user "local"`,
    );
  }
  const evals = config.evals ? await EvalReports.open(config.evals.reports) : undefined;
  const storeUrl = options.store ?? config.store ?? `sqlite:${DEFAULT_SQLITE_PATH}`;
  const agents = await buildAgents(config.agents);
  const backendOptions: BackendOptions = { ...options.backend };
  if (config.events?.maxPerSession) backendOptions.maxEventsPerSession = config.events.maxPerSession;
  if (config.storePrefix !== undefined) backendOptions.prefix = config.storePrefix;
  if (config.server?.lockTtlMs) backendOptions.lockTtlMs = config.server.lockTtlMs;
  const backend = await createBackend(storeUrl, backendOptions);
  // Everything that can fail after the backend opened closes it again, so a bad config leaks nothing.
  const attached = await attachServices(options, agents, backend, storeUrl).catch(async (error) => {
    await backend.close();
    throw error;
  });
  const { memory, knowledge, budget, opened } = attached;
  const workspaces = opened?.manager;
  const runtimeOptions: ConstructorParameters<typeof ServiceRuntime>[0] = {
    backend,
    agents: attached.agents,
  };
  if (workspaces) runtimeOptions.onSessionDeleted = (record) => workspaces.remove(record);
  if (config.server?.heartbeatMs) runtimeOptions.heartbeatMs = config.server.heartbeatMs;
  if (config.server?.maxConcurrentRuns) runtimeOptions.maxConcurrentRuns = config.server.maxConcurrentRuns;
  const limits: NonNullable<typeof runtimeOptions.limits> = {};
  if (config.server?.maxRunsPerUser) limits.maxRunsPerUser = config.server.maxRunsPerUser;
  if (config.server?.queue) limits.queue = true;
  if (config.server?.queueTimeoutMs) limits.queueTimeoutMs = config.server.queueTimeoutMs;
  runtimeOptions.limits = limits;
  if (config.server?.recoverCheckMs) runtimeOptions.recoverCheckMs = config.server.recoverCheckMs;
  if (config.server?.resumeOnRecovery) runtimeOptions.resumeOnRecovery = true;
  const streams: NonNullable<typeof runtimeOptions.streams> = {};
  if (config.server?.maxStreamsPerUser) streams.maxStreamsPerUser = config.server.maxStreamsPerUser;
  if (config.server?.writeTimeoutMs) streams.writeTimeoutMs = config.server.writeTimeoutMs;
  if (config.server?.maxUnsentBytes) streams.maxUnsentBytes = config.server.maxUnsentBytes;
  runtimeOptions.streams = streams;
  if (config.server?.sweepEveryMs) runtimeOptions.sweepEveryMs = config.server.sweepEveryMs;
  if (options.log) runtimeOptions.log = options.log;
  const checkpoints = await closingOnError(
    () =>
      buildCheckpoints(
        options.checkpoints ?? config.checkpoints,
        storeUrl,
        config.storePrefix,
        workspaces,
        memory.notesOfSession,
      ),
    async () => {
      await opened?.close();
      await backend.close();
    },
  );
  if (checkpoints) runtimeOptions.checkpoints = checkpoints;
  if (roles.size > 0) runtimeOptions.rolesOf = (user) => roles.get(user) ?? [];
  const runtime = new ServiceRuntime(runtimeOptions);
  const mounts = mountedRoutes(runtime, {
    memory,
    workspaces,
    knowledge,
    budget,
    evals,
    optional: !options.withoutOptionalRoutes,
  });
  const appOptions: Parameters<typeof createApp>[1] = {
    tokens,
    mounts,
    allowedHosts: allowedHosts(host, config.server?.allowedHosts, notices),
    corsOrigins: config.cors?.origins ?? [],
  };
  if (config.server?.maxBodyBytes) appOptions.maxBodyBytes = config.server.maxBodyBytes;
  if (options.onServerError) appOptions.onServerError = options.onServerError;
  if (options.log) appOptions.log = options.log;
  const app = createApp(runtime, appOptions);
  const port = options.port ?? config.server?.port ?? 8787;
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port, hostname: host }, () => resolve(s));
    s.once("error", reject);
  }).catch(async (error) => {
    await runtime.close();
    await opened?.close();
    throw new Error(`cannot listen on ${host}:${port}: ${(error as Error).message}`, { cause: error });
  });
  const address = server.address() as AddressInfo;
  const running: RunningServer = {
    url: `http://${host}:${address.port}`,
    host,
    port: address.port,
    notices,
    warnings: opened?.warning ? [opened.warning] : [],
    containment:
      opened?.containment ??
      "tools NOT contained: no workspaces (workspaces: false); the tools work in this process's directory",
    runtime,
    app,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await memory.flush(); // memory extractions still running write to the backend: let them finish
      await runtime.close();
      await opened?.close();
      await budget?.close();
    },
  };
  if (knowledge) running.knowledge = knowledge;
  return running;
}
