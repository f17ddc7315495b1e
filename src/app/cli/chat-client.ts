import type { AgentEvent } from "../../event/index.js";
import { userMsg } from "../../message/index.js";
import type { CheckpointList, ForkAnswer, RewindAnswer } from "../../protocol/time-travel-types.js";
import { LOCAL_USER } from "../server/http/auth.js";
import type { RunHandle } from "../server/runtime/run-execution.js";
import type { ConfirmAnswer, ServiceRuntime } from "../server/runtime/service-runtime.js";
import type { SessionTimeTravel } from "../server/runtime/session-time-travel.js";
import { CliError } from "./cli-error.js";
import { endsRun, readEventStream } from "./sse-client.js";

/** What `/rewind` and `/fork` need of a chat's session (both clients have them; docs/time-travel.md). */
export interface ChatTimeTravel {
  checkpoints(): Promise<CheckpointList>;
  rewind(checkpoint: string): Promise<RewindAnswer>;
  /** A fork of the session at `checkpoint`, as a chat client on the new session. */
  fork(checkpoint: string): Promise<ChatClient>;
}

/** What `agentscope chat` needs of an agent, in-process or over HTTP. */
export interface ChatClient {
  readonly sessionId: string;
  /** Starts a reply to `text` and yields its events until it ends or pauses. */
  send(text: string): AsyncGenerator<AgentEvent>;
  confirm(answers: ConfirmAnswer[]): AsyncGenerator<AgentEvent>;
  /** Interrupts the reply in flight. */
  interrupt(): Promise<void>;
  /**
   * A file of the session's workspace, for the diff of a call that asks: its text, undefined when
   * it does not exist, null when it cannot be read (no workspace, outside it, binary, too large).
   */
  readFile?(path: string): Promise<string | null | undefined>;
  /** `/rewind` and `/fork` (chat-time-travel.ts); absent: the chat keeps no checkpoints. */
  timeTravel?: ChatTimeTravel;
  close(): Promise<void>;
}

/** Files larger than this are not diffed (the prompt shows the call's own text). */
export const MAX_DIFFED_FILE_BYTES = 512 * 1024;

/** The text of a file read for a diff, or null when it is too large or binary. */
export function diffableText(bytes: Uint8Array): string | null {
  if (bytes.byteLength > MAX_DIFFED_FILE_BYTES || bytes.includes(0)) return null;
  return new TextDecoder().decode(bytes);
}

/** Reads a file of a session's workspace in this process (see `ChatClient.readFile`). */
export type SessionFileReader = (sessionId: string, path: string) => Promise<string | null | undefined>;

/**
 * A chat in this process, on a ServiceRuntime (the same code path as the server), in a new session
 * of `agent` or in the session `existing` (a fork's).
 */
export async function runtimeChatClient(
  runtime: ServiceRuntime,
  agent?: string,
  readFile?: SessionFileReader,
  existing?: string,
): Promise<ChatClient> {
  const sessionId = existing ?? (await runtime.createSession(LOCAL_USER, agent ? { agent } : {})).sessionId;
  async function* follow(start: Promise<RunHandle>): AsyncGenerator<AgentEvent> {
    const run = await start;
    const controller = new AbortController();
    const items = await runtime.follow(LOCAL_USER, sessionId, {
      after: run.after,
      signal: controller.signal,
      until: run.done,
    });
    for await (const item of items) if (item.kind === "event") yield item.event;
  }
  return {
    sessionId,
    send: (text) => follow(runtime.startReply(LOCAL_USER, sessionId, [userMsg(text)])),
    confirm: (answers) => follow(runtime.confirm(LOCAL_USER, sessionId, answers, undefined, { via: "cli" })),
    interrupt: async () => void (await runtime.interrupt(LOCAL_USER, sessionId).catch(() => undefined)),
    ...(readFile ? { readFile: (path: string) => readFile(sessionId, path) } : {}),
    ...(runtime.timeTravel
      ? { timeTravel: runtimeTimeTravel(runtime, runtime.timeTravel, sessionId, readFile) }
      : {}),
    close: () => runtime.close(),
  };
}

function runtimeTimeTravel(
  runtime: ServiceRuntime,
  travel: SessionTimeTravel,
  sessionId: string,
  readFile: SessionFileReader | undefined,
): ChatTimeTravel {
  const record = () => runtime.getSession(LOCAL_USER, sessionId);
  return {
    checkpoints: async () => travel.list(await record()),
    rewind: async (checkpoint) => travel.rewind(await record(), checkpoint),
    fork: async (checkpoint) => {
      const fork = await travel.fork(runtime, await record(), { checkpoint });
      const client = await runtimeChatClient(runtime, undefined, readFile, fork.session.sessionId);
      return { ...client, close: async () => {} }; // the runtime is the first chat's to close
    },
  };
}

export interface HttpChatOptions {
  url: string;
  token?: string;
  /** Continue this session instead of creating one. */
  sessionId?: string;
  agent?: string;
}

async function failure(response: Response): Promise<Error> {
  const body = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  const message = `the server answered ${response.status}: ${body?.error?.message ?? response.statusText}`;
  if (response.status === 401) return new CliError(message, "pass --token <token> or set AGENTSCOPE_TOKEN");
  if (response.status === 403) return new CliError(message, "use the address the server listens on (--url)");
  return new CliError(message);
}

/** `fetch`, with a connection failure turned into one clear line. */
async function reach(base: string, input: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(
      `cannot reach ${base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      "is `agentscope serve` running there? Check --url",
    );
  }
}

/**
 * A chat against a running server. A stream cut mid-run is resumed from the last event id
 * (`Last-Event-ID`), so nothing is shown twice or lost.
 */
export async function httpChatClient(options: HttpChatOptions): Promise<ChatClient> {
  const base = options.url.replace(/\/+$/, "");
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const call = async (method: string, path: string, body?: unknown, accept = "application/json") => {
    const response = await reach(base, `${base}${path}`, {
      method,
      headers: { ...headers, accept },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) throw await failure(response);
    return response;
  };
  let sessionId = options.sessionId;
  if (!sessionId) {
    const created = await call("POST", "/v1/sessions", options.agent ? { agent: options.agent } : {});
    sessionId = ((await created.json()) as { sessionId: string }).sessionId;
  }
  const path = `/v1/sessions/${encodeURIComponent(sessionId)}`;

  async function* run(route: string, body: unknown): AsyncGenerator<AgentEvent> {
    let response = await call("POST", `${path}/${route}`, body, "text/event-stream");
    let last: number | undefined;
    for (;;) {
      let ended = false;
      for await (const { seq, event } of readEventStream(response)) {
        last = seq;
        yield event;
        if (endsRun(event)) ended = true;
      }
      if (ended || last === undefined) return;
      response = await reach(base, `${base}${path}/events`, {
        headers: { ...headers, accept: "text/event-stream", "last-event-id": String(last) },
      });
      if (!response.ok) throw await failure(response);
    }
  }

  return {
    sessionId,
    send: (text) => run("replies", { text }),
    confirm: (answers) => run("confirm", { answers }),
    interrupt: async () => void (await call("POST", `${path}/interrupt`, {}).catch(() => undefined)),
    timeTravel: {
      checkpoints: async () => (await call("GET", `${path}/checkpoints`)).json(),
      rewind: async (checkpoint) => (await call("POST", `${path}/rewind`, { checkpoint })).json(),
      fork: async (checkpoint) => {
        const fork = (await (await call("POST", `${path}/fork`, { checkpoint })).json()) as ForkAnswer;
        return httpChatClient({ ...options, sessionId: fork.session.sessionId });
      },
    },
    async readFile(file) {
      const response = await fetch(`${base}${path}/workspace/file?path=${encodeURIComponent(file)}`, {
        headers: { ...headers, accept: "application/octet-stream" },
      }).catch(() => undefined);
      if (!response?.ok) {
        // 404 is also what a server without workspaces answers: only "does not exist" is a new file.
        const body = (await response?.json().catch(() => undefined)) as
          | { error?: { message?: string } }
          | undefined;
        return response?.status === 404 && /does not exist/.test(body?.error?.message ?? "")
          ? undefined
          : null;
      }
      if (Number(response.headers.get("content-length") ?? 0) > MAX_DIFFED_FILE_BYTES) {
        await response.body?.cancel();
        return null;
      }
      return diffableText(new Uint8Array(await response.arrayBuffer()));
    },
    close: async () => {},
  };
}
