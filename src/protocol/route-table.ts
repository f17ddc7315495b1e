import type { Msg } from "../message/index.js";
import type { DecisionList } from "./decision-record.js";
import type { IndexJob, KnowledgeBaseInfo, KnowledgeDocument, KnowledgeHit } from "./knowledge-types.js";
import type { ForgetResult, MemoryList, MemoryNotes } from "./memory-types.js";
import type { InterruptResult, RunStarted } from "./reply-types.js";
import {
  ConfirmBody,
  CreateKnowledgeBaseBody,
  CreateSessionBody,
  EditMessageBody,
  ExternalResultsBody,
  ForkBody,
  InterruptBody,
  KnowledgeSearchBody,
  RenameSessionBody,
  ReplyBody,
  RewindBody,
  RunToolBody,
} from "./request-schemas.js";
import { answer, jsonBody, type Route } from "./route.js";
import type {
  AgentList,
  ServiceHealth,
  SessionDetail,
  SessionInfo,
  SessionPage,
  SessionStatus,
} from "./session-types.js";
import type { AgentProfile, SessionEvalCase, SessionStateVersion, ToolTrial } from "./studio-types.js";
import type { CheckpointList, ForkAnswer, RewindAnswer } from "./time-travel-types.js";
import { AGENTSCOPE_EVENTS_HEADER } from "./ui-message-stream.js";
import type { WorkspaceListing } from "./workspace-types.js";

const runStarted = answer<RunStarted>(
  202,
  "Accepted (JSON): `{ sessionId, replyId, after, events }`; follow `events` for the run's events. With `Accept: text/event-stream`: 200 and the run's events as SSE (`id:` per-session event id, `event:` type, `data:` AgentEvent JSON) until it ends or pauses.",
  "json-or-sse",
);
const runLimit = [
  { status: 429 as const, description: "the server's or the user's run limit (Retry-After)" },
];
const agentQuery = {
  agent: { type: "string" as const, description: "an agent's name (letters, digits, _ . -)" },
};

/**
 * Every route of the service, in the order they register (a fixed path before a parameter at the
 * same place: `/v1/memories/notes` before `/v1/memories/{id}`). Adding a route: an entry here, its
 * handler (by the same name) in the route file that serves it, a test, and docs/service.md.
 */
export const SERVICE_ROUTES = {
  health: {
    method: "GET",
    path: "/v1/health",
    summary: "Liveness, backend kind and agents",
    auth: "none",
    answer: answer<ServiceHealth>(200, "ok: `{ status, backend, agents }`"),
  },
  openApi: {
    method: "GET",
    path: "/v1/openapi.json",
    summary: "This document",
    auth: "none",
    answer: answer<Record<string, unknown>>(200, "The OpenAPI 3.1 document, generated from the route table"),
  },
  listAgents: {
    method: "GET",
    path: "/v1/agents",
    summary: "The agents this server offers",
    auth: "bearer",
    answer: answer<AgentList>(200, "`{ agents: [{ name, subagents?, members? }] }`"),
  },
  createSession: {
    method: "POST",
    path: "/v1/sessions",
    summary: "Create a session",
    auth: "bearer",
    body: jsonBody(CreateSessionBody, "session"),
    answer: answer<SessionInfo>(201, "The session record"),
  },
  listSessions: {
    method: "GET",
    path: "/v1/sessions",
    summary: "List your sessions (paged by cursor)",
    auth: "bearer",
    query: {
      limit: { type: "integer", minimum: 1, maximum: 500, description: "sessions per page (default 50)" },
      cursor: { type: "string", description: "the previous page's `nextCursor`" },
    },
    answer: answer<SessionPage>(200, "`{ sessions, nextCursor? }`"),
  },
  getSession: {
    method: "GET",
    path: "/v1/sessions/{id}",
    summary: "A session with its status",
    auth: "bearer",
    answer: answer<SessionDetail>(200, "record + status"),
  },
  renameSession: {
    method: "PATCH",
    path: "/v1/sessions/{id}",
    summary: "Rename a session (`title`: 1 to 200 characters)",
    auth: "bearer",
    body: jsonBody(RenameSessionBody, "session rename", true),
    answer: answer<SessionInfo>(200, "The session record with its new title"),
  },
  deleteSession: {
    method: "DELETE",
    path: "/v1/sessions/{id}",
    summary: "Delete a session (state, events, record)",
    auth: "bearer",
    answer: answer<undefined>(204, "deleted"),
  },
  messages: {
    method: "GET",
    path: "/v1/sessions/{id}/messages",
    summary: "Message history",
    auth: "bearer",
    answer: answer<{ messages: Msg[] }>(200, "`{ messages: Msg[] }`"),
  },
  decisions: {
    method: "GET",
    path: "/v1/sessions/{id}/decisions",
    summary: "The session's decision records (who approved, denied or edited what, under which rule)",
    auth: "bearer",
    answer: answer<DecisionList>(200, "`{ decisions: DecisionRecord[] }`, oldest first"),
  },
  status: {
    method: "GET",
    path: "/v1/sessions/{id}/status",
    summary: "Running, waiting (and for which calls) or idle",
    auth: "bearer",
    answer: answer<SessionStatus>(200, "SessionStatus"),
  },
  events: {
    method: "GET",
    path: "/v1/sessions/{id}/events",
    summary: "The session's event stream (SSE), resumable",
    auth: "bearer",
    query: { after: { type: "integer", minimum: 0, description: "events after this id" } },
    headers: { "Last-Event-ID": "events after this id (wins over `after`)" },
    answer: answer<never>(
      200,
      "SSE frames; `: keep-alive` comments; `event: gap` if older events were trimmed",
      "sse",
    ),
    alsoAnswers: [{ status: 429, description: "the user's open-stream limit (Retry-After)" }],
  },
  startReply: {
    method: "POST",
    path: "/v1/sessions/{id}/replies",
    summary: "Start a reply (text or input Msg); empty body continues",
    auth: "bearer",
    body: jsonBody(ReplyBody, "reply request"),
    answer: runStarted,
    alsoAnswers: runLimit,
  },
  confirm: {
    method: "POST",
    path: "/v1/sessions/{id}/confirm",
    summary: "Answer the reply's confirmation request",
    auth: "bearer",
    body: jsonBody(ConfirmBody, "confirmation"),
    answer: runStarted,
    alsoAnswers: runLimit,
  },
  externalResults: {
    method: "POST",
    path: "/v1/sessions/{id}/external-results",
    summary: "Send results of externally executed tool calls",
    auth: "bearer",
    body: jsonBody(ExternalResultsBody, "external results"),
    answer: runStarted,
    alsoAnswers: runLimit,
  },
  interrupt: {
    method: "POST",
    path: "/v1/sessions/{id}/interrupt",
    summary: "Interrupt the running or paused reply",
    auth: "bearer",
    body: jsonBody(InterruptBody, "interrupt"),
    answer: answer<InterruptResult>(202, "`{ was: running | paused, replyId?, after? }`"),
  },
  listCheckpoints: {
    method: "GET",
    path: "/v1/sessions/{id}/checkpoints",
    summary: "The session's checkpoints (reply ends and pauses), its branches and where it is",
    auth: "bearer",
    answer: answer<CheckpointList>(200, "`{ checkpoints, head, files }`"),
  },
  rewindSession: {
    method: "POST",
    path: "/v1/sessions/{id}/rewind",
    summary: "Move the session back to a checkpoint: conversation, grants and workspace files (undoable)",
    auth: "bearer",
    body: jsonBody(RewindBody, "rewind"),
    answer: answer<RewindAnswer>(200, "`{ checkpoint, undo, branch, messages, files?, closedReply? }`"),
  },
  forkSession: {
    method: "POST",
    path: "/v1/sessions/{id}/fork",
    summary: "A new session from a checkpoint of this one, with a copy of its workspace as it was",
    auth: "bearer",
    body: jsonBody(ForkBody, "fork"),
    answer: answer<ForkAnswer>(201, "`{ session, origin, checkpoint }`"),
  },
  editMessage: {
    method: "POST",
    path: "/v1/sessions/{id}/messages/{messageId}/edit",
    summary:
      "Edit a past user message and resend it: a rewind to just before it, then a reply (a new branch)",
    auth: "bearer",
    body: jsonBody(EditMessageBody, "edited message"),
    answer: runStarted,
    alsoAnswers: runLimit,
  },
  listWorkspaceFiles: {
    method: "GET",
    path: "/v1/sessions/{id}/workspace/files",
    summary: "A directory of the session's workspace (404 on a server without workspaces)",
    auth: "bearer",
    query: {
      path: { type: "string", description: "the directory, relative to the workspace (default the root)" },
      recursive: { type: "string", description: "`1`: everything under it" },
    },
    answer: answer<WorkspaceListing>(200, "`{ path, entries, truncated }`"),
  },
  downloadWorkspaceFile: {
    method: "GET",
    path: "/v1/sessions/{id}/workspace/file",
    summary: "One file of the session's workspace",
    auth: "bearer",
    query: { path: { type: "string", description: "the file, relative to the workspace" } },
    answer: answer<Blob>(200, "The file's bytes (application/octet-stream, as an attachment)", "bytes"),
  },
  sessionEvalCase: {
    method: "GET",
    path: "/v1/sessions/{id}/eval-case",
    summary: "The session (or one finished reply) as an eval case, for `agentscope eval`",
    auth: "bearer",
    query: {
      replyId: { type: "string", description: "record only this reply (default: every reply)" },
      caseId: { type: "string", description: "the case's id (default: derived from the session or reply)" },
    },
    answer: answer<SessionEvalCase>(200, "`{ case, jsonl, fileName }`"),
  },
  inspectAgent: {
    method: "GET",
    path: "/v1/sessions/{id}/agent",
    summary:
      "The session's agent as the next model call sees it: system prompt, model, tools, rules, middleware",
    auth: "bearer",
    answer: answer<AgentProfile>(200, "AgentProfile"),
  },
  sessionState: {
    method: "GET",
    path: "/v1/sessions/{id}/state",
    summary: "The session's agent state as stored, with its store version (the studio's state inspector)",
    auth: "bearer",
    answer: answer<SessionStateVersion>(200, "`{ version, readAt, state }`"),
  },
  runTool: {
    method: "POST",
    path: "/v1/sessions/{id}/tools/{name}/run",
    summary:
      "Run one of the session agent's tools by hand, through the permission gate (the studio's playground)",
    auth: "bearer",
    body: jsonBody(RunToolBody, "tool run", true),
    answer: answer<ToolTrial>(200, "`{ tool, decision, ran, approvedBy?, result? }`"),
  },
  listMemoryNotes: {
    method: "GET",
    path: "/v1/memories/notes",
    summary: "The notes the Memory tool keeps for you",
    auth: "bearer",
    query: agentQuery,
    answer: answer<MemoryNotes>(200, "`{ enabled, files: [{ path, size, text }] }`"),
  },
  deleteMemoryNote: {
    method: "DELETE",
    path: "/v1/memories/notes",
    summary: "Delete one note",
    auth: "bearer",
    query: { ...agentQuery, path: { type: "string", description: "the note, e.g. /memories/prefs.md" } },
    answer: answer<undefined>(204, "deleted"),
  },
  listMemories: {
    method: "GET",
    path: "/v1/memories",
    summary: "What the service remembers about you",
    auth: "bearer",
    query: agentQuery,
    answer: answer<MemoryList>(200, "`{ enabled, memories: MemoryRecord[] }`"),
  },
  deleteMemory: {
    method: "DELETE",
    path: "/v1/memories/{id}",
    summary: "Forget one memory",
    auth: "bearer",
    answer: answer<undefined>(204, "forgotten"),
  },
  forgetMemories: {
    method: "DELETE",
    path: "/v1/memories",
    summary: "Forget all your memories (or all of one kind)",
    auth: "bearer",
    query: { kind: { type: "string", description: "`fact` or `preference`" } },
    answer: answer<ForgetResult>(200, "`{ deleted }`"),
  },
  createKnowledgeBase: {
    method: "POST",
    path: "/v1/knowledge-bases",
    summary: "Create a knowledge base",
    auth: "bearer",
    body: jsonBody(CreateKnowledgeBaseBody, "knowledge base", true),
    answer: answer<KnowledgeBaseInfo>(201, "The knowledge base"),
  },
  listKnowledgeBases: {
    method: "GET",
    path: "/v1/knowledge-bases",
    summary: "Your knowledge bases",
    auth: "bearer",
    answer: answer<{ knowledgeBases: KnowledgeBaseInfo[] }>(200, "`{ knowledgeBases }`"),
  },
  deleteKnowledgeBase: {
    method: "DELETE",
    path: "/v1/knowledge-bases/{name}",
    summary: "Delete a knowledge base and its documents",
    auth: "bearer",
    answer: answer<undefined>(204, "deleted"),
  },
  uploadDocuments: {
    method: "POST",
    path: "/v1/knowledge-bases/{name}/documents",
    summary: "Upload documents to index in the background",
    auth: "bearer",
    body: { kind: "multipart", description: "one or more `file` fields" },
    answer: answer<{ jobs: IndexJob[] }>(202, "`{ jobs }`: one indexing job per file"),
  },
  indexJob: {
    method: "GET",
    path: "/v1/knowledge-bases/{name}/jobs/{id}",
    summary: "Where an indexing job stands",
    auth: "bearer",
    answer: answer<IndexJob>(200, "The job: `queued | indexing | done | failed`, progress"),
  },
  indexJobEvents: {
    method: "GET",
    path: "/v1/knowledge-bases/{name}/jobs/{id}/events",
    summary: "An indexing job's progress (SSE) until it ends",
    auth: "bearer",
    answer: answer<never>(200, "SSE `progress` events, each the job", "sse"),
  },
  listDocuments: {
    method: "GET",
    path: "/v1/knowledge-bases/{name}/documents",
    summary: "The documents of a knowledge base",
    auth: "bearer",
    answer: answer<{ documents: KnowledgeDocument[] }>(200, "`{ documents }`"),
  },
  deleteDocument: {
    method: "DELETE",
    path: "/v1/knowledge-bases/{name}/documents/{documentId}",
    summary: "Delete one document",
    auth: "bearer",
    answer: answer<undefined>(204, "deleted"),
  },
  searchKnowledge: {
    method: "POST",
    path: "/v1/knowledge-bases/{name}/search",
    summary: "Search a knowledge base",
    auth: "bearer",
    body: jsonBody(KnowledgeSearchBody, "search request", true),
    answer: answer<{ hits: KnowledgeHit[] }>(
      200,
      "`{ hits: [{ documentId, chunkIndex, text, citation, score }] }`",
    ),
  },
  agui: {
    method: "POST",
    path: "/v1/agui",
    summary: "Run an agent over AG-UI (the thread is a session of yours)",
    auth: "bearer",
    body: { kind: "foreign", description: "AG-UI RunAgentInput" },
    answer: answer<never>(200, "AG-UI events as SSE", "sse"),
    alsoAnswers: [{ status: 429, description: "the user's open-stream limit (Retry-After)" }],
  },
  a2aAgentCard: {
    method: "GET",
    path: "/v1/a2a/{agent}/.well-known/agent-card.json",
    summary: "An agent's A2A agent card",
    auth: "bearer",
    answer: answer<Record<string, unknown>>(200, "The A2A AgentCard"),
  },
  a2a: {
    method: "POST",
    path: "/v1/a2a/{agent}",
    summary: "An agent's A2A JSON-RPC endpoint (v1.0 with `A2A-Version: 1.0`, else v0.3)",
    auth: "bearer",
    body: { kind: "foreign", description: "A2A JSON-RPC request" },
    answer: answer<Record<string, unknown>>(
      200,
      "The JSON-RPC response, or SSE for the streaming methods",
      "json-or-sse",
    ),
  },
  openaiModels: {
    method: "GET",
    path: "/v1/openai/models",
    summary: "The agents as OpenAI models (the OpenAI-compatible bridge; docs/bridges.md)",
    auth: "bearer",
    answer: answer<{ object: "list"; data: Array<{ id: string; object: "model"; owned_by: string }> }>(
      200,
      "An OpenAI model list, one model per agent",
    ),
  },
  openaiModel: {
    method: "GET",
    path: "/v1/openai/models/{model}",
    summary: "One agent as an OpenAI model",
    auth: "bearer",
    answer: answer<{ id: string; object: "model"; owned_by: string }>(200, "An OpenAI model object"),
  },
  openaiChatCompletions: {
    method: "POST",
    path: "/v1/openai/chat/completions",
    summary: "An OpenAI chat completion: a reply of the agent named by `model`, streamed or not",
    auth: "bearer",
    body: { kind: "foreign", description: "OpenAI ChatCompletionCreateParams (model = an agent)" },
    answer: answer<Record<string, unknown>>(
      200,
      "A chat.completion, or chat.completion.chunk frames as SSE with `stream: true`",
      "json-or-sse",
    ),
    alsoAnswers: [{ status: 429, description: "the user's open-stream limit (Retry-After), when streamed" }],
  },
  aiSdkChat: {
    method: "POST",
    path: "/v1/ai-sdk/{agent}/chat",
    summary: "A reply as an AI SDK UI message stream (useChat's default transport; docs/bridges.md)",
    auth: "bearer",
    body: {
      kind: "foreign",
      description: "AI SDK chat request: { id (the session), messages (UI messages), trigger }",
    },
    headers: {
      [AGENTSCOPE_EVENTS_HEADER]: "`1`: every agent event as a transient data-agentscope-event chunk too",
    },
    answer: answer<never>(200, "UI message stream chunks as SSE (x-vercel-ai-ui-message-stream: v1)", "sse"),
    alsoAnswers: [{ status: 429, description: "the user's run or open-stream limit (Retry-After)" }],
  },
  aiSdkChatStream: {
    method: "GET",
    path: "/v1/ai-sdk/{agent}/chat/{id}/stream",
    summary: "Resume a chat's running reply (useChat resume: true): replayed from its start, then live",
    auth: "bearer",
    answer: answer<never>(200, "UI message stream chunks as SSE; 204 when no reply is running", "sse"),
    alsoAnswers: [{ status: 429, description: "the user's open-stream limit (Retry-After)" }],
  },
  aiSdkChatStop: {
    method: "POST",
    path: "/v1/ai-sdk/{agent}/chat/{id}/stop",
    summary: "Stop a chat's reply on the server (interrupts the run, on whichever replica runs it)",
    auth: "bearer",
    body: jsonBody(InterruptBody, "stop"),
    answer: answer<InterruptResult>(
      202,
      "`{ was: running | paused, replyId?, after? }`; 200 `{ was: idle }` when nothing runs",
    ),
  },
} as const satisfies Record<string, Route>;

export type ServiceRoutes = typeof SERVICE_ROUTES;
/** A route's name: the key of its entry in SERVICE_ROUTES, and of its handler. */
export type RouteName = keyof ServiceRoutes;

/** The JSON body a route's success answer carries. */
export type RouteResponse<N extends RouteName> = ServiceRoutes[N]["answer"] extends {
  readonly type?: infer T;
}
  ? T
  : never;

/** The JSON body a route takes (what a client sends: the schema's input), `undefined` when none. */
export type RouteRequestBody<N extends RouteName> = ServiceRoutes[N] extends {
  body: { kind: "json"; schema: infer S };
}
  ? S extends { _zod: { input: infer I } }
    ? I
    : never
  : undefined;

type ParamsOf<P extends string> = P extends `${string}{${infer Name}}${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<Rest>
  : unknown;

/** The path parameters of a route, e.g. `{ id: string }` for `/v1/sessions/{id}`. */
export type RouteParams<N extends RouteName> =
  ParamsOf<ServiceRoutes[N]["path"]> extends infer P ? { [K in keyof P]: P[K] } : never;

/** The route names in registration order. */
export const ROUTE_NAMES = Object.keys(SERVICE_ROUTES) as RouteName[];
