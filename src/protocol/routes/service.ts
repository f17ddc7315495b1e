import { answer, type Route } from "../route.js";
import type { AgentList, ServiceHealth } from "../session-types.js";

/** The service's own routes: health, this document, the agents. */
export const SERVICE_INFO_ROUTES = {
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
} as const satisfies Record<string, Route>;
