/**
 * The page's client of the service's /v1 API: JSON requests with the bearer token from
 * localStorage, and a session event follower (fetch + SSE parsing, so the token travels in a
 * header) that reconnects from the last event id it saw.
 */
export const API_JS = String.raw`
const TOKEN_KEY = "agentscope.token";

export function getToken() {
  return localStorage.getItem(TOKEN_KEY) || "";
}

export function setToken(token) {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  constructor(status, type, message) {
    super(message);
    this.status = status;
    this.type = type;
  }
}

function headers(extra) {
  const out = Object.assign({}, extra);
  const token = getToken();
  if (token) out.authorization = "Bearer " + token;
  return out;
}

async function failure(res) {
  let body = {};
  try {
    body = await res.json();
  } catch (_) {}
  const error = body.error || {};
  return new ApiError(res.status, error.type || "http_" + res.status, error.message || res.statusText || "request failed");
}

/** One JSON request; a non-2xx answer throws ApiError with the server's { error: { type, message } }. */
export async function api(method, path, body) {
  const init = { method: method, headers: headers({ accept: "application/json" }) };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (!res.ok) throw await failure(res);
  if (res.status === 204) return undefined;
  return res.json();
}

export const sessionPath = (id) => "/v1/sessions/" + encodeURIComponent(id);

/** Parses an SSE body, calling onFrame({ id, event, data }) per frame; comments are skipped. */
async function readFrames(body, onFrame) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const next = await reader.read();
    if (next.done) return;
    buffer += next.value;
    const parts = buffer.split(/\r?\n\r?\n/);
    buffer = parts.pop();
    for (const part of parts) {
      const frame = { data: "" };
      for (const line of part.split(/\r?\n/)) {
        if (line === "" || line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") frame.data += (frame.data ? "\n" : "") + value;
        else frame[field] = value;
      }
      if (frame.data || frame.event) onFrame(frame);
    }
  }
}

/**
 * Follows a session's events from event id after: handlers.onEvent(event, id) per event,
 * handlers.onConnection("live" | "reconnecting"), handlers.onGap(info), handlers.onFatal(error)
 * for 401/404. Reconnects with ?after=<last id seen> (backing off up to 5 s) until close().
 */
export function followSession(sessionId, after, handlers) {
  let lastId = after;
  let closed = false;
  let controller;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  (async () => {
    let delay = 400;
    while (!closed) {
      controller = new AbortController();
      try {
        const res = await fetch(sessionPath(sessionId) + "/events?after=" + lastId, {
          headers: headers({ accept: "text/event-stream" }),
          signal: controller.signal,
          cache: "no-store",
        });
        if (!res.ok) throw await failure(res);
        handlers.onConnection("live");
        delay = 400;
        await readFrames(res.body, (frame) => {
          if (closed) return;
          if (frame.event === "gap") {
            handlers.onGap(JSON.parse(frame.data));
            return;
          }
          if (frame.id !== undefined) lastId = Number(frame.id);
          handlers.onEvent(JSON.parse(frame.data), lastId);
        });
      } catch (error) {
        if (closed) return;
        if (error instanceof ApiError && (error.status === 401 || error.status === 404)) {
          handlers.onFatal(error);
          return;
        }
      }
      if (closed) return;
      handlers.onConnection("reconnecting");
      await sleep(delay);
      delay = Math.min(delay * 2, 5000);
    }
  })();
  return {
    close() {
      closed = true;
      if (controller) controller.abort();
    },
  };
}
`;
