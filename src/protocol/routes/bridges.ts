import type { InterruptResult } from "../reply-types.js";
import { InterruptBody } from "../request-schemas.js";
import { answer, jsonBody, type Route } from "../route.js";
import { AGENTSCOPE_EVENTS_HEADER } from "../ui-message-stream.js";

/** Other protocols over the same sessions: AG-UI, A2A, the OpenAI-compatible and AI SDK bridges (docs/bridges.md). */
export const BRIDGE_ROUTES = {
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
