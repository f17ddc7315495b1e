import type { AgentEvent } from "../event/index.js";
import {
  AGENTSCOPE_EVENT_PART,
  AGENTSCOPE_EVENTS_HEADER,
  type UiMessageChunk,
  uiChatPath,
} from "../protocol/ui-message-stream.js";
import { ConnectionError, serviceErrorOf } from "./errors.js";
import { readSseFrames } from "./sse-frames.js";

/** The part of a UI message the transport sends (the AI SDK's `UIMessage` fits). */
export interface UiChatMessage {
  id: string;
  role: "user" | "assistant" | "system";
  parts: unknown[];
}

/** Per-request options `useChat` passes (`sendMessage(msg, { headers, body })`). */
interface UiRequestOptions {
  headers?: Record<string, string> | Headers;
  body?: object;
}

/**
 * A `ChatTransport` for `useChat` (structurally the AI SDK's; this module does not import `ai`):
 * the AI SDK bridge's UI message stream, plus each agent event handed to `onEvent` as it arrives.
 */
export interface AgentscopeChatTransport<M extends UiChatMessage = UiChatMessage> {
  /** A resumed stream replays the reply from its start (the AI SDK rebuilds the message). */
  readonly resumeStreamIsReplay: true;
  sendMessages(
    options: {
      trigger: "submit-message" | "regenerate-message";
      chatId: string;
      messageId: string | undefined;
      messages: M[];
      abortSignal: AbortSignal | undefined;
    } & UiRequestOptions,
  ): Promise<ReadableStream<UiMessageChunk>>;
  reconnectToStream(
    options: { chatId: string; abortSignal?: AbortSignal } & UiRequestOptions,
  ): Promise<ReadableStream<UiMessageChunk> | null>;
}

export interface AgentscopeChatTransportOptions {
  /** The agent the chat talks to. */
  agent: string;
  /** The service's origin (default: the page's, i.e. relative URLs). */
  baseUrl?: string;
  /** Bearer token, or a function read before every request. */
  token?: string | (() => string | undefined);
  /** Every agent event of the reply, typed, beside the UI message chunks (sub-agents' included). */
  onEvent?: (event: AgentEvent) => void;
  /**
   * `useChat`'s `stop()` (and unmounting the hook, which calls it) also stops the run on the server
   * (`POST <api>/<chatId>/stop`). Default true; a page reload never does (it aborts nothing).
   */
  stopOnAbort?: boolean;
  fetch?: typeof fetch;
}

/**
 * A transport for `useChat` against the service's AI SDK bridge, for pages that want our typed events
 * beside the UI messages and a stop that ends the run server-side:
 * `useChat({ id, transport: agentscopeChatTransport({ agent: "assistant", token, onEvent }), resume: true })`.
 * Errors are the client's (`ServiceError` with the status and kind, `ConnectionError`).
 */
export function agentscopeChatTransport<M extends UiChatMessage = UiChatMessage>(
  options: AgentscopeChatTransportOptions,
): AgentscopeChatTransport<M> {
  const baseUrl = (options.baseUrl ?? "").replace(/\/+$/, "");
  if (baseUrl !== "" && !/^https?:\/\//.test(baseUrl))
    throw new TypeError(`baseUrl: "${options.baseUrl}" is not an http(s) URL`);
  if (typeof options.agent !== "string" || options.agent === "")
    throw new TypeError("agent: name the agent the chat talks to");
  const api = baseUrl + uiChatPath(options.agent);
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headersOf = (extra?: Record<string, string> | Headers): Record<string, string> => {
    const token = typeof options.token === "function" ? options.token() : options.token;
    const out: Record<string, string> = {};
    new Headers(extra).forEach((value, key) => {
      out[key] = value;
    });
    if (token) out.authorization = `Bearer ${token}`;
    if (options.onEvent) out[AGENTSCOPE_EVENTS_HEADER] = "1";
    return out;
  };
  const request = async (label: string, url: string, init: RequestInit): Promise<Response> => {
    let response: Response;
    try {
      response = await doFetch(url, init);
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new ConnectionError(`${label}: cannot reach the service: ${(error as Error).message}`, {
        cause: error,
      });
    }
    if (!response.ok && response.status !== 204) throw await serviceErrorOf(response, label);
    return response;
  };
  const stopOnAbort = (chatId: string, signal: AbortSignal | undefined) => {
    if (!signal || options.stopOnAbort === false) return () => {};
    const stop = () =>
      void doFetch(`${api}/${encodeURIComponent(chatId)}/stop`, {
        method: "POST",
        headers: headersOf(),
        keepalive: true,
      }).catch(() => {});
    signal.addEventListener("abort", stop, { once: true });
    return () => signal.removeEventListener("abort", stop);
  };
  const chunks = (body: ReadableStream<Uint8Array>, done: () => void) =>
    chunkStream(body, options.onEvent, done);

  return {
    resumeStreamIsReplay: true,
    async sendMessages({ chatId, messages, trigger, messageId, abortSignal, headers, body }) {
      const response = await request(`POST ${uiChatPath(options.agent)}`, api, {
        method: "POST",
        headers: { ...headersOf(headers), "content-type": "application/json" },
        // The session keeps the history; the service reads the last message only, so only it is sent.
        body: JSON.stringify({ ...body, id: chatId, messages: messages.slice(-1), trigger, messageId }),
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      if (!response.body) throw new ConnectionError("the chat response has no body");
      return chunks(response.body, stopOnAbort(chatId, abortSignal));
    },
    async reconnectToStream({ chatId, abortSignal, headers }) {
      const path = `${uiChatPath(options.agent)}/${encodeURIComponent(chatId)}/stream`;
      const response = await request(`GET ${path}`, baseUrl + path, {
        headers: headersOf(headers),
        ...(abortSignal ? { signal: abortSignal } : {}),
      });
      if (response.status === 204 || !response.body) return null;
      return chunks(response.body, stopOnAbort(chatId, abortSignal));
    },
  };
}

/** The UI message chunks of a response; `data-agentscope-event` chunks go to `onEvent` instead. */
function chunkStream(
  body: ReadableStream<Uint8Array>,
  onEvent: ((event: AgentEvent) => void) | undefined,
  done: () => void,
): ReadableStream<UiMessageChunk> {
  const frames = readSseFrames(body, () => {});
  return new ReadableStream<UiMessageChunk>({
    async pull(controller) {
      for (;;) {
        const next = await frames.next();
        if (next.done) {
          done();
          controller.close();
          return;
        }
        if (next.value.data === "[DONE]") continue;
        const chunk = JSON.parse(next.value.data) as UiMessageChunk;
        if (chunk.type === AGENTSCOPE_EVENT_PART) {
          onEvent?.(chunk.data as AgentEvent);
          continue;
        }
        controller.enqueue(chunk);
        return;
      }
    },
    async cancel() {
      done();
      await frames.return(undefined);
    },
  });
}
