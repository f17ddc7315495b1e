import { z } from "zod";
import { ErrorBodySchema } from "./error-body.js";
import type { Route } from "./route.js";
import { ROUTE_NAMES, SERVICE_ROUTES } from "./route-table.js";

type Json = Record<string, unknown>;

const error = {
  description: "`{ error: { type, message } }`",
  content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
};
/** Every route may answer these; 503 `unavailable` (with Retry-After) while the store cannot be reached. */
const COMMON_ERRORS = ["400", "401", "404", "409", "413", "503"] as const;

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });

function parameters(route: Route): Json[] {
  const list: Json[] = [];
  for (const match of route.path.matchAll(/\{(\w+)\}/g))
    list.push({ name: match[1], in: "path", required: true, schema: { type: "string" } });
  for (const [name, query] of Object.entries(route.query ?? {})) {
    const schema: Json = { type: query.type };
    if (query.minimum !== undefined) schema.minimum = query.minimum;
    if (query.maximum !== undefined) schema.maximum = query.maximum;
    list.push({ name, in: "query", description: query.description, schema });
  }
  for (const [name, description] of Object.entries(route.headers ?? {}))
    list.push({ name, in: "header", description, schema: { type: "string" } });
  return list;
}

function requestBody(route: Route): Json | undefined {
  const body = route.body;
  if (!body) return undefined;
  if (body.kind === "json")
    return { required: body.required, content: { "application/json": { schema: jsonSchema(body.schema) } } };
  const type = body.kind === "multipart" ? "multipart/form-data" : "application/json";
  return {
    required: true,
    description: body.description,
    content: { [type]: { schema: { type: "object" } } },
  };
}

const SSE = { "text/event-stream": { schema: { type: "string" } } };

function responses(route: Route): Json {
  const { answer } = route;
  const out: Json = {};
  if (answer.content === "sse")
    out[String(answer.status)] = { description: answer.description, content: SSE };
  else if (answer.content === "bytes")
    out[String(answer.status)] = {
      description: answer.description,
      content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
    };
  else if (answer.content === "json-or-sse" && answer.status !== 200) {
    out[String(answer.status)] = { description: answer.description };
    out["200"] = { description: "With `Accept: text/event-stream`: the events as SSE", content: SSE };
  } else out[String(answer.status)] = { description: answer.description };
  for (const also of route.alsoAnswers ?? [])
    out[String(also.status)] = { ...error, description: also.description };
  if (route.auth === "none") return out;
  for (const status of COMMON_ERRORS) out[status] = error;
  // A route that takes a JSON body answers 415 to a body of another Content-Type.
  if (route.body) out["415"] = error;
  return out;
}

/** The OpenAPI operation of one route. */
function operation(route: Route): Json {
  const op: Json = { summary: route.summary };
  if (route.auth === "none") op.security = [];
  const params = parameters(route);
  if (params.length > 0) op.parameters = params;
  const body = requestBody(route);
  if (body) op.requestBody = body;
  op.responses = responses(route);
  return op;
}

/** The OpenAPI 3.1 document served at /v1/openapi.json, generated from SERVICE_ROUTES. */
export function openApiDocument(version: string): Json {
  const paths: Record<string, Json> = {};
  for (const name of ROUTE_NAMES) {
    const route: Route = SERVICE_ROUTES[name];
    const item = paths[route.path] ?? {};
    item[route.method.toLowerCase()] = { operationId: name, ...operation(route) };
    paths[route.path] = item;
  }
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
      schemas: { Error: jsonSchema(ErrorBodySchema) },
    },
    paths,
  };
}
