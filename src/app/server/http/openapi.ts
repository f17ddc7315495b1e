import { z } from "zod";
import {
  ConfirmBody,
  CreateSessionBody,
  ExternalResultsBody,
  InterruptBody,
  RenameSessionBody,
  ReplyBody,
} from "./request-schemas.js";

const json = (schema: z.ZodType) => ({
  "application/json": { schema: z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) },
});
const error = {
  description: "`{ error: { type, message } }`",
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
};
/** Every route may answer 503 `unavailable` (with Retry-After) while the store cannot be reached. */
const errors = { "400": error, "401": error, "404": error, "409": error, "413": error, "503": error };
/** A route that takes a JSON body also answers 415 to a body of another Content-Type. */
const bodyErrors = { ...errors, "415": error };
const sessionId = { name: "id", in: "path", required: true, schema: { type: "string" } };
const runStarted = {
  "202": {
    description:
      "Accepted (JSON): `{ sessionId, replyId, after, events }`; follow `events` for the run's events.",
  },
  "200": {
    description:
      "With `Accept: text/event-stream`: the run's events as SSE (`id:` per-session event id, `event:` type, `data:` AgentEvent JSON) until it ends or pauses.",
    content: { "text/event-stream": { schema: { type: "string" } } },
  },
  "429": error,
  ...bodyErrors,
};

function post(summary: string, body: z.ZodType, responses: object) {
  return {
    summary,
    parameters: [sessionId],
    requestBody: { required: false, content: json(body) },
    responses,
  };
}

/** The OpenAPI 3.1 document served at /v1/openapi.json. */
export function openApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "agentscope agent service",
      version,
      description:
        "Sessions with an agent; replies run server-side and stream as SSE. Reconnect to /events with Last-Event-ID (or ?after=) to get exactly the missed events, then live ones. Auth: `Authorization: Bearer <token>` when the server has tokens.",
    },
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["type", "message"],
              properties: { type: { type: "string" }, message: { type: "string" } },
            },
          },
        },
      },
    },
    paths: {
      "/v1/health": {
        get: {
          summary: "Liveness, backend kind and agents",
          security: [],
          responses: { "200": { description: "ok" } },
        },
      },
      "/v1/agents": {
        get: {
          summary: "The agents this server offers",
          responses: { "200": { description: "`{ agents: [{ name }] }`" } },
        },
      },
      "/v1/sessions": {
        post: {
          summary: "Create a session",
          requestBody: { required: false, content: json(CreateSessionBody) },
          responses: { "201": { description: "The session record" }, ...bodyErrors },
        },
        get: {
          summary: "List your sessions (paged by cursor)",
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 500 } },
            { name: "cursor", in: "query", schema: { type: "string" } },
          ],
          responses: { "200": { description: "`{ sessions, nextCursor? }`" }, ...errors },
        },
      },
      "/v1/sessions/{id}": {
        get: {
          summary: "A session with its status",
          parameters: [sessionId],
          responses: { "200": { description: "record + status" }, ...errors },
        },
        patch: {
          summary: "Rename a session (`title`: 1 to 200 characters)",
          parameters: [sessionId],
          requestBody: { required: true, content: json(RenameSessionBody) },
          responses: { "200": { description: "The session record with its new title" }, ...bodyErrors },
        },
        delete: {
          summary: "Delete a session (state, events, record)",
          parameters: [sessionId],
          responses: { "204": { description: "deleted" }, ...errors },
        },
      },
      "/v1/sessions/{id}/messages": {
        get: {
          summary: "Message history",
          parameters: [sessionId],
          responses: { "200": { description: "`{ messages: Msg[] }`" }, ...errors },
        },
      },
      "/v1/sessions/{id}/status": {
        get: {
          summary: "Running, waiting (and for which calls) or idle",
          parameters: [sessionId],
          responses: { "200": { description: "SessionStatus" }, ...errors },
        },
      },
      "/v1/sessions/{id}/events": {
        get: {
          summary: "The session's event stream (SSE), resumable",
          parameters: [
            sessionId,
            { name: "after", in: "query", schema: { type: "integer", minimum: 0 } },
            { name: "Last-Event-ID", in: "header", schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "SSE frames; `: keep-alive` comments; `event: gap` if older events were trimmed",
              content: { "text/event-stream": { schema: { type: "string" } } },
            },
            "429": { ...error, description: "the user's open-stream limit (Retry-After)" },
            ...errors,
          },
        },
      },
      "/v1/sessions/{id}/replies": {
        post: post("Start a reply (text or input Msg); empty body continues", ReplyBody, runStarted),
      },
      "/v1/sessions/{id}/confirm": {
        post: post("Answer the reply's confirmation request", ConfirmBody, runStarted),
      },
      "/v1/sessions/{id}/external-results": {
        post: post("Send results of externally executed tool calls", ExternalResultsBody, runStarted),
      },
      "/v1/sessions/{id}/interrupt": {
        post: post("Interrupt the running or paused reply", InterruptBody, {
          "202": { description: "`{ was: running | paused }`" },
          ...bodyErrors,
        }),
      },
    },
  };
}
