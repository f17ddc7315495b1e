import type { Msg } from "../message/index.js";
import type { BudgetStanding } from "../protocol/budget-types.js";
import {
  type CallableRouteAddress,
  type RouteAt,
  type RouteCallArgs,
  type RouteQuery,
  routeRequest,
} from "../protocol/route-call.js";
import type { RouteRequestBody, RouteResponse } from "../protocol/route-table.js";
import type { RetryPolicy } from "./backoff.js";
import type { EventStream } from "./event-stream.js";
import { KnowledgeBases } from "./knowledge.js";
import type { RunStream, StreamOptions } from "./run-stream.js";
import { SessionStreams, sessionPath } from "./session-streams.js";
import { ClientTransport, requestKey } from "./transport.js";
import type {
  ApprovalRequest,
  ConfirmRequest,
  CreateSessionOptions,
  DecisionRecord,
  ExternalResultsRequest,
  InterruptResult,
  MemoryList,
  SendInput,
  ServiceHealth,
  SessionDetail,
  SessionInfo,
  SessionPage,
  SessionStatus,
  WorkspaceListing,
} from "./types.js";

export interface AgentScopeClientOptions {
  /** The service's origin, e.g. `http://127.0.0.1:8787`; default "" (same origin, in a browser). */
  baseUrl?: string;
  /** Bearer token (or a function read before every request, e.g. from a settings field). */
  token?: string | (() => string | undefined);
  /** Injectable fetch (default the global one). */
  fetch?: typeof fetch;
  /** Reconnect policy of event streams. */
  retry?: RetryPolicy;
  /** A stream silent this long is reconnected (default 45 s; the service sends a keep-alive every 15 s). */
  idleTimeoutMs?: number;
}

/**
 * A typed client of the agentscope service (browser and Node; fetch only). JSON calls throw
 * ServiceError with the service's error type, or ConnectionError when it cannot be reached.
 * `send`, `confirm` and `externalResults` return a RunStream: iterate it for the run's events,
 * delivered once each, in order, across dropped connections and server restarts.
 */
export class AgentScopeClient {
  readonly #http: ClientTransport;
  readonly #streams: SessionStreams;
  /** The user's knowledge bases: bases, documents (upload, indexing status) and search. */
  readonly knowledge: KnowledgeBases;

  constructor(options: AgentScopeClientOptions = {}) {
    this.#http = new ClientTransport(options);
    this.#streams = new SessionStreams(this.#http, options, (sessionId) => this.status(sessionId));
    this.knowledge = new KnowledgeBases((method, path, body, signal) =>
      this.request(method, path, body, signal),
    );
  }

  health(): Promise<ServiceHealth> {
    return this.request("GET", "/v1/health");
  }

  async agents(): Promise<string[]> {
    const body = await this.request<RouteResponse<"listAgents">>("GET", "/v1/agents");
    return body.agents.map((agent) => agent.name);
  }

  createSession(options: CreateSessionOptions = {}): Promise<SessionInfo> {
    return this.request("POST", "/v1/sessions", options);
  }

  listSessions(options: { limit?: number; cursor?: string } = {}): Promise<SessionPage> {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    if (options.cursor !== undefined) query.set("cursor", options.cursor);
    const text = query.toString();
    return this.request("GET", `/v1/sessions${text ? `?${text}` : ""}`);
  }

  getSession(sessionId: string): Promise<SessionDetail> {
    return this.request("GET", sessionPath(sessionId));
  }

  /** Renames a session (`PATCH /v1/sessions/:id`; `title` 1 to 200 characters) and returns its record. */
  renameSession(sessionId: string, title: string): Promise<SessionInfo> {
    return this.request("PATCH", sessionPath(sessionId), { title });
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.request("DELETE", sessionPath(sessionId));
  }

  async messages(sessionId: string): Promise<Msg[]> {
    return (await this.request<RouteResponse<"messages">>("GET", `${sessionPath(sessionId)}/messages`))
      .messages;
  }

  /** The session's decision records, oldest first: who asked, approved, denied or edited which call, and how. */
  async decisions(sessionId: string): Promise<DecisionRecord[]> {
    return (await this.request<RouteResponse<"decisions">>("GET", `${sessionPath(sessionId)}/decisions`))
      .decisions;
  }

  /**
   * The asks in other users' sessions that you may answer as a named approver (an agent's approver
   * policy names you or one of your roles): which call, its input, the policy, votes so far / needed.
   */
  async approvals(): Promise<ApprovalRequest[]> {
    return (await this.request<RouteResponse<"approvals">>("GET", "/v1/approvals")).approvals;
  }

  /**
   * Answers one of `approvals()` as its named approver: approves or refuses the call as asked
   * (an approver of another user's session edits nothing and remembers no rules). Sent with an
   * `Idempotency-Key`, so a retried request counts once.
   */
  answerApproval(
    ask: Pick<ApprovalRequest, "sessionId" | "replyId" | "toolCallId">,
    confirmed: boolean,
    reason?: string,
  ): Promise<RouteResponse<"confirm">> {
    const answer = { toolCallId: ask.toolCallId, confirmed, ...(reason === undefined ? {} : { reason }) };
    const body = { replyId: ask.replyId, answers: [answer] };
    return this.#http.request("POST", `${sessionPath(ask.sessionId)}/confirm`, body, undefined, requestKey());
  }

  status(sessionId: string): Promise<SessionStatus> {
    return this.request("GET", `${sessionPath(sessionId)}/status`);
  }

  /** Sends user input (text, a Msg or several) and streams the reply; no input continues the session. */
  send(sessionId: string, input?: SendInput, options: StreamOptions = {}): RunStream {
    const body = input === undefined ? {} : typeof input === "string" ? { text: input } : { input };
    return this.#streams.run(sessionId, "replies", body, options);
  }

  /** Answers a confirmation (approve or deny each waiting call, optionally with edited input) and streams the rest. */
  confirm(sessionId: string, request: ConfirmRequest, options: StreamOptions = {}): RunStream {
    return this.#streams.run(sessionId, "confirm", request, options);
  }

  /** Hands back results of calls the agent asked the client to run, and streams the rest. */
  externalResults(
    sessionId: string,
    request: ExternalResultsRequest,
    options: StreamOptions = {},
  ): RunStream {
    return this.#streams.run(sessionId, "external-results", request, options);
  }

  /** Asks the session's run to stop; its stream ends with REPLY_END (interrupted). Sent with an Idempotency-Key. */
  interrupt(sessionId: string, reason?: string): Promise<InterruptResult> {
    const body = reason === undefined ? {} : { reason };
    return this.#http.request("POST", `${sessionPath(sessionId)}/interrupt`, body, undefined, requestKey());
  }

  /** The session's checkpoints (oldest first), its branches and where it is (docs/time-travel.md). */
  checkpoints(sessionId: string): Promise<RouteResponse<"listCheckpoints">> {
    return this.request("GET", `${sessionPath(sessionId)}/checkpoints`);
  }

  /**
   * Moves the session back to a checkpoint (conversation, grants, files; memory writes made since
   * kept, or reverted with `memory: "revert"`); rewind to `undo` to undo it.
   */
  rewind(
    sessionId: string,
    checkpoint: string,
    options: { memory?: "keep" | "revert" } = {},
  ): Promise<RouteResponse<"rewindSession">> {
    return this.request("POST", `${sessionPath(sessionId)}/rewind`, { checkpoint, ...options });
  }

  /** A new session from a checkpoint of this one, with a copy of its workspace as it was. */
  fork(
    sessionId: string,
    checkpoint: string,
    options: { sessionId?: string; title?: string } = {},
  ): Promise<RouteResponse<"forkSession">> {
    return this.request("POST", `${sessionPath(sessionId)}/fork`, { checkpoint, ...options });
  }

  /**
   * Replaces a past user message and runs from there: the session is rewound to just before it (the
   * old line stays as a branch) and a reply to `text` starts; follow it with `events(sessionId, { after })`.
   */
  editMessage(sessionId: string, messageId: string, text: string): Promise<RouteResponse<"editMessage">> {
    return this.request("POST", `${sessionPath(sessionId)}/messages/${encodeURIComponent(messageId)}/edit`, {
      text,
    });
  }

  /** Follows the session's event log after event id `after`, forever (until closed), reconnecting as needed. */
  events(sessionId: string, options: StreamOptions & { after?: number } = {}): EventStream {
    return this.#streams.events(sessionId, options);
  }

  /**
   * Follows a run already under way (e.g. found running by `status` after a page reload) from
   * event id `after` to its REPLY_END or pause. Only that reply's events (and its sub-agents') are
   * delivered, so `after: 0` rebuilds the reply from the top of the log; then pass `running` = the
   * status's `lastEventId` (a pause before that point is history, not the end of the stream).
   */
  followRun(
    sessionId: string,
    run: { replyId: string; after: number; running?: number },
    options: StreamOptions = {},
  ): RunStream {
    return this.#streams.followRun(sessionId, run, options);
  }

  /** What the service remembers about the user (`enabled: false` when it keeps no memory); with `agent`, that agent's too. */
  memories(options: { agent?: string } = {}): Promise<MemoryList> {
    const query = options.agent ? `?agent=${encodeURIComponent(options.agent)}` : "";
    return this.request("GET", `/v1/memories${query}`);
  }

  /** Your spend and what is left of each of your budgets (`user` limits; none without a budget). */
  budget(): Promise<BudgetStanding> {
    return this.request("GET", "/v1/budget");
  }

  /** Forgets one memory (404 when the user has none with that id). */
  async deleteMemory(memoryId: string): Promise<void> {
    await this.request("DELETE", `/v1/memories/${encodeURIComponent(memoryId)}`);
  }

  /**
   * Lists a directory of the session's workspace (`path` relative to the root, default the root;
   * `recursive` for everything under it). A service without workspaces answers 404 (`not_found`),
   * as does a missing directory; a path leaving the workspace is a 400 (`invalid_request`).
   */
  workspaceFiles(
    sessionId: string,
    options: { path?: string; recursive?: boolean } = {},
  ): Promise<WorkspaceListing> {
    const query = new URLSearchParams();
    if (options.path !== undefined) query.set("path", options.path);
    if (options.recursive) query.set("recursive", "1");
    const text = query.toString();
    return this.request("GET", `${sessionPath(sessionId)}/workspace/files${text ? `?${text}` : ""}`);
  }

  /**
   * The URL of one workspace file. It carries no token (tokens never go in a URL): fetch it with the
   * Authorization header, as `downloadWorkspaceFile` does, rather than linking to it.
   */
  workspaceFileUrl(sessionId: string, path: string): string {
    if (typeof path !== "string" || path === "")
      throw new TypeError("path: the workspace file to download, relative to the workspace root");
    return `${this.#http.baseUrl}${sessionPath(sessionId)}/workspace/file?path=${encodeURIComponent(path)}`;
  }

  /** Downloads one workspace file's bytes (ServiceError 404 when missing, 400 for a directory or a path outside). */
  async downloadWorkspaceFile(sessionId: string, path: string, signal?: AbortSignal): Promise<Blob> {
    const url = this.workspaceFileUrl(sessionId, path);
    const response = await this.#http.fetchOk("GET", url.slice(this.#http.baseUrl.length), {
      method: "GET",
      headers: { accept: "application/octet-stream", ...this.#http.auth() },
      ...(signal ? { signal } : {}),
    });
    return response.blob();
  }

  /** The session's agent as its next model call sees it (the studio's inspector). */
  inspectAgent(sessionId: string): Promise<RouteResponse<"inspectAgent">> {
    return this.request("GET", `${sessionPath(sessionId)}/agent`);
  }

  /** The session's agent state as stored with its version, or as a checkpoint holds it (the studio's state inspector). */
  sessionState(
    sessionId: string,
    options: { checkpoint?: string } = {},
  ): Promise<RouteResponse<"sessionState">> {
    const query = options.checkpoint ? `?checkpoint=${encodeURIComponent(options.checkpoint)}` : "";
    return this.request("GET", `${sessionPath(sessionId)}/state${query}`);
  }

  /**
   * Runs one tool of the session's agent by hand (the studio's playground): the permission
   * decision for that input, and the output when it ran (an ask runs only with `approved`).
   */
  runTool(
    sessionId: string,
    tool: string,
    body: RouteRequestBody<"runTool">,
  ): Promise<RouteResponse<"runTool">> {
    return this.request("POST", `${sessionPath(sessionId)}/tools/${encodeURIComponent(tool)}/run`, body);
  }

  /**
   * The session (or one finished reply of it, `replyId`) as an eval case for `agentscope eval`:
   * `{ case, jsonl, fileName }` (409 while a reply runs or waits).
   */
  sessionEvalCase(
    sessionId: string,
    options: { replyId?: string; caseId?: string } = {},
  ): Promise<RouteResponse<"sessionEvalCase">> {
    const query = new URLSearchParams();
    if (options.replyId) query.set("replyId", options.replyId);
    if (options.caseId) query.set("caseId", options.caseId);
    const text = query.toString();
    return this.request("GET", `${sessionPath(sessionId)}/eval-case${text ? `?${text}` : ""}`);
  }

  /**
   * Any route of the table, typed from it by its address: `client.route("PATCH /v1/sessions/{id}",
   * { params: { id }, body: { title } })` answers `RouteResponse<"renameSession">` (a JSON answer
   * parsed, 204 undefined, a file's bytes a Blob). The named methods are shorthands over the same
   * routes; an SSE route has its stream (`events`, `send`, ...).
   */
  route<A extends CallableRouteAddress>(
    address: A,
    ...[args]: RouteCallArgs<RouteAt<A>>
  ): Promise<RouteResponse<RouteAt<A>>> {
    const call: {
      params?: Record<string, string>;
      query?: RouteQuery;
      body?: unknown;
      signal?: AbortSignal;
    } = args ?? {};
    const { method, path } = routeRequest(address, call.params, call.query);
    return this.#http.request(method, path, call.body, call.signal, undefined, true);
  }

  /**
   * One JSON request to the service (for routes this client has no method for yet). A body is
   * sent as `application/json` (FormData as multipart); 204 resolves to undefined.
   */
  async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    return this.#http.request<T>(method, path, body, signal);
  }
}
