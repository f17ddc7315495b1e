import type { Hono } from "hono";
import { decisionsToCsv, decisionsToJsonl } from "../../../protocol/index.js";
import { RequestError } from "../request-error.js";
import type { ServiceRuntime } from "../runtime/service-runtime.js";
import { userDecisions } from "../runtime/user-decisions.js";
import type { ServiceVariables } from "./auth.js";
import { routesFrom } from "./routes-from.js";

/** The role that may export another user's decision records. */
export const AUDIT_ROLE = "admin";

/**
 * The audit export (`GET /v1/decisions`): the caller's own records, or with `user` another user's
 * when the caller has the admin role (a user without it asking for someone else's gets a 403, so
 * an export is never silently the wrong person's).
 */
export function auditRoutes(runtime: ServiceRuntime): Hono<{ Variables: ServiceVariables }> {
  return routesFrom({
    exportDecisions: async (c) => {
      const caller = c.var.user;
      const owner = c.req.query("user") || caller;
      if (owner !== caller && !runtime.rolesOf(caller).includes(AUDIT_ROLE))
        throw new RequestError(
          "forbidden",
          `exporting the decisions of "${owner}" needs the ${AUDIT_ROLE} role; ${caller} has it not`,
        );
      const format = c.req.query("format") ?? "jsonl";
      if (format !== "jsonl" && format !== "csv")
        throw new RequestError("invalid_request", "format: jsonl or csv");
      const from = timeOf(c.req.query("from"), "from");
      const to = timeOf(c.req.query("to"), "to");
      const session = c.req.query("session");
      // a session of another owner is "not found", as on every session route
      if (session) await runtime.getSession(owner, session);
      const records = await userDecisions(
        runtime.backend,
        owner,
        { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) },
        session ? [session] : undefined,
      );
      const name = `decisions-${session ?? owner}.${format}`;
      return c.body(format === "csv" ? decisionsToCsv(records) : decisionsToJsonl(records), 200, {
        "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson",
        "content-disposition": `attachment; filename="${name.replace(/[^\w.:-]/g, "_")}"`,
      });
    },
  });
}

function timeOf(text: string | undefined, name: string): number | undefined {
  if (text === undefined || text === "") return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at))
    throw new RequestError("invalid_request", `${name}: a time in ISO 8601 (2026-01-31T12:00:00Z)`);
  return at;
}
