import { describe, expect, it } from "vitest";
import { ReplyStateError } from "../../src/agent/index.js";
import { AguiInputError } from "../../src/app/agui/input.js";
import { CliError } from "../../src/app/cli/cli-error.js";
import { FencedError } from "../../src/app/server/backend/fenced-error.js";
import { ConfigError } from "../../src/app/server/config/service-config.js";
import { HttpError, toHttpError } from "../../src/app/server/http-error.js";
import { RequestError, sessionNotFound } from "../../src/app/server/request-error.js";
import {
  AgentScopeClientError,
  ConnectionError,
  EventsLostError,
  ServiceError,
} from "../../src/client/index.js";
import { MemoryPathError } from "../../src/memory/memory-files.js";
import {
  AgentScopeError,
  type ErrorType,
  RoleViolationError,
  toErrorInfo,
  ValidationError,
} from "../../src/message/index.js";
import { PermissionRuleError, UndecidedInputError } from "../../src/permission/index.js";
import { ANSWER_OF_KIND, kindOfAnswer, SERVICE_ERROR_TYPES } from "../../src/protocol/index.js";
import { StateConflictError } from "../../src/state/index.js";
import { ToolError, ToolInputError, ToolNameCollisionError } from "../../src/tool/index.js";
import { FrontMatterError } from "../../src/tool/skill/front-matter.js";
import { SandboxUnavailableError, WorkspacePathError } from "../../src/workspace/index.js";

/** Every error class of the package that was on bare Error or on AgentScopeClientError before. */
const CLASSES: Array<[string, abstract new (...args: never[]) => Error]> = [
  ["ReplyStateError", ReplyStateError],
  ["AguiInputError", AguiInputError],
  ["CliError", CliError],
  ["FencedError", FencedError],
  ["ConfigError", ConfigError],
  ["HttpError", HttpError],
  ["MemoryPathError", MemoryPathError],
  ["RoleViolationError", RoleViolationError],
  ["ValidationError", ValidationError],
  ["UndecidedInputError", UndecidedInputError],
  ["PermissionRuleError", PermissionRuleError],
  ["FrontMatterError", FrontMatterError],
  ["ToolError", ToolError],
  ["ToolInputError", ToolInputError],
  ["ToolNameCollisionError", ToolNameCollisionError],
  ["SandboxUnavailableError", SandboxUnavailableError],
  ["WorkspacePathError", WorkspacePathError],
  ["AgentScopeClientError", AgentScopeClientError],
  ["ServiceError", ServiceError],
  ["ConnectionError", ConnectionError],
  ["EventsLostError", EventsLostError],
];

describe("one error root", () => {
  it.each(CLASSES)("%s extends AgentScopeError (and still Error)", (_name, type) => {
    expect(type.prototype).toBeInstanceOf(AgentScopeError);
    expect(type.prototype).toBeInstanceOf(Error);
  });

  it("a subclass built from a message gets its class's kind", () => {
    expect(new ValidationError("body", "text", "required").info).toEqual({
      type: "invalid_request",
      message: "invalid body: text: required",
    });
    expect(new SandboxUnavailableError("not_installed", "no bwrap").info.type).toBe("unavailable");
    expect(new UndecidedInputError("undecided").info.type).toBe("invalid_state");
    expect(new ToolNameCollisionError("Read").info.type).toBe("conflict");
    expect(new ReplyStateError("no reply waits for an answer").info.type).toBe("invalid_state");
    expect(new StateConflictError("s1", 1, 2).info.type).toBe("conflict");
    expect(toErrorInfo(new WorkspacePathError("../x", "leaves the root"))).toEqual({
      type: "invalid_request",
      message: "leaves the root",
    });
  });

  it("isInstance recognises an error from another copy of the package (where instanceof does not)", async () => {
    // A second evaluation of the module stands for a duplicated package copy.
    const second = "../../src/message/errors.ts?copy=1";
    const copy = (await import(/* @vite-ignore */ second)) as typeof import("../../src/message/errors.js");
    expect(copy.AgentScopeError).not.toBe(AgentScopeError);
    const foreign = new copy.AgentScopeError({ type: "conflict", message: "taken" });
    expect(foreign instanceof AgentScopeError).toBe(false);
    expect(AgentScopeError.isInstance(foreign)).toBe(true);
    expect(toErrorInfo(foreign)).toEqual({ type: "conflict", message: "taken" });
    class StateConflictError extends copy.AgentScopeError {}
    expect(AgentScopeError.isInstance(new StateConflictError("x"))).toBe(true);
  });

  it("a subclass's isInstance asks for that class, not any agentscope error", () => {
    expect(RequestError.isInstance(sessionNotFound("s1"))).toBe(true);
    expect(RequestError.isInstance(new ValidationError("body", "", "bad"))).toBe(false);
    expect(AgentScopeError.isInstance(new Error("plain"))).toBe(false);
    expect(AgentScopeError.isInstance({ info: { type: "internal" }, name: "FakeError" })).toBe(false);
  });

  it("the client's errors carry the root's kinds", () => {
    const missing = new ServiceError(404, "not_found", "no session", "GET /v1/sessions/x");
    expect(missing.info.type).toBe("not_found");
    expect(new ServiceError(502, "http_502", "Bad Gateway", "GET /v1/health").info.type).toBe("unavailable");
    expect(new ConnectionError("down").info.type).toBe("connection");
    expect(new EventsLostError(10, 2).info.type).toBe("not_found");
    expect(missing.kind).toBe("service");
  });
});

describe("the HTTP edge maps kinds to status codes (ANSWER_OF_KIND)", () => {
  it("every kind the service answers with maps to itself", () => {
    for (const kind of SERVICE_ERROR_TYPES) expect(ANSWER_OF_KIND[kind].type).toBe(kind);
  });

  it.each([
    ["invalid_request", 400, "invalid_request"],
    ["not_found", 404, "not_found"],
    ["conflict", 409, "conflict"],
    ["invalid_state", 409, "conflict"],
    ["run_in_progress", 409, "run_in_progress"],
    ["rate_limit", 429, "rate_limit"],
    ["unavailable", 503, "unavailable"],
    ["upstream", 500, "internal"],
  ] as Array<[ErrorType, number, string]>)("a %s RequestError answers %i %s", (kind, status, type) => {
    const http = toHttpError(new RequestError(kind, "why"));
    expect([http.status, http.type]).toEqual([status, type]);
  });

  it("keeps Retry-After, and a peer's failure (it carries the peer's status) is the server's: 500", () => {
    expect(toHttpError(new RequestError("rate_limit", "busy", 2)).retryAfterSeconds).toBe(2);
    const provider = new AgentScopeError({ type: "authentication", message: "bad key", status: 401 });
    expect(toHttpError(provider).status).toBe(500);
  });

  it("a client reads an answer's kind back from the body's type or the status", () => {
    expect(kindOfAnswer(409, "run_in_progress")).toBe("run_in_progress");
    expect(kindOfAnswer(404, "http_404")).toBe("not_found");
    expect(kindOfAnswer(418, undefined)).toBe("invalid_request");
    expect(kindOfAnswer(500, "http_500")).toBe("internal");
  });
});
