export { jsonHeaders } from "./attempt.js";
export {
  abortedError,
  errorFromBody,
  errorFromResponse,
  malformedChunk,
  ProviderError,
  providerMessage,
  retryAfterMs,
  streamCut,
} from "./errors.js";
export { createNdjsonReader } from "./ndjson.js";
export { type JsonRequest, requestJson } from "./request-json.js";
export { backoffDelay, DEFAULT_MAX_RETRIES } from "./retry.js";
export { createSseReader, type OnWireEvent, type TextDecoderSink } from "./sse.js";
export { streamChat } from "./stream-chat.js";
export type {
  FetchFunction,
  HttpRequest,
  StreamRequest,
  TransportOptions,
  WireFormat,
  WireParser,
} from "./types.js";
