export { jsonHeaders } from "./attempt.js";
export { defaultTransportName, TRANSPORT_ENV } from "./choose-transport.js";
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
export { fetchTransport } from "./fetch-transport.js";
export { createNdjsonReader } from "./ndjson.js";
export { type JsonRequest, requestJson } from "./request-json.js";
export { backoffDelay, DEFAULT_MAX_RETRIES } from "./retry.js";
export { createSseReader, type OnWireEvent, type TextDecoderSink } from "./sse.js";
export { streamChat } from "./stream-chat.js";
export type {
  BodyRead,
  BodyReader,
  FetchFunction,
  HeaderLookup,
  HttpRequest,
  HttpResponse,
  HttpTransport,
  StreamRequest,
  TransportChoice,
  TransportOptions,
  TransportRequest,
  WireFormat,
  WireParser,
} from "./types.js";
