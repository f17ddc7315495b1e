import { AgentScopeError } from "../../message/index.js";
import { fetchTransport } from "./fetch-transport.js";
import type { HttpTransport, TransportOptions } from "./types.js";

/** The environment variable that picks the transport of every model that does not choose one. */
export const TRANSPORT_ENV = "AGENTSCOPE_TRANSPORT";

type Runtime = { Deno?: unknown; Bun?: unknown; EdgeRuntime?: unknown; navigator?: { userAgent?: string } };

/** Node itself (not Deno, Bun or an edge runtime that imitates parts of it). */
export function runningOnNode(): boolean {
  const g = globalThis as Runtime & { process?: { versions?: { node?: unknown } } };
  if (g.Deno !== undefined || g.Bun !== undefined || g.EdgeRuntime !== undefined) return false;
  if (g.navigator?.userAgent === "Cloudflare-Workers") return false;
  return typeof g.process?.versions?.node === "string";
}

/** What a model uses when neither its options nor the environment choose: node:http on Node, fetch elsewhere. */
export function defaultTransportName(): "fetch" | "node" {
  return runningOnNode() ? "node" : "fetch";
}

const globalFetchTransport = fetchTransport();
let nodeTransport: Promise<HttpTransport> | undefined;

/** node-http.ts, imported on first use so nothing loads `node:http` before a Node request needs it. */
function loadNodeTransport(provider: string): Promise<HttpTransport> {
  nodeTransport ??= import("./node-http.js").then(
    (module) => module.nodeHttpTransport,
    (error: unknown) => {
      nodeTransport = undefined;
      throw new AgentScopeError(
        {
          type: "invalid_request",
          message: `the "node" transport needs Node's node:http (${(error as Error).message}); use transport: "fetch" on this runtime.`,
          source: provider,
        },
        { cause: error },
      );
    },
  );
  return nodeTransport;
}

function invalid(provider: string, message: string): AgentScopeError {
  return new AgentScopeError({ type: "invalid_request", message, source: provider });
}

function environmentChoice(provider: string): "fetch" | "node" | undefined {
  const g = globalThis as { process?: { env?: Record<string, string | undefined> } };
  const value = g.process?.env?.[TRANSPORT_ENV]?.trim();
  if (value === undefined || value === "") return undefined;
  if (value === "fetch" || value === "node") return value;
  throw invalid(provider, `${TRANSPORT_ENV} is "${value}"; it takes "fetch" or "node".`);
}

/**
 * The transport for one call: the `transport` option, else fetch when a `fetch` is given, else
 * AGENTSCOPE_TRANSPORT, else node:http on Node and fetch elsewhere. Throws an `invalid_request`
 * AgentScopeError for an unknown choice, or `transport: "node"` together with a `fetch`.
 */
export function chooseTransport(options: TransportOptions, provider: string): Promise<HttpTransport> {
  const choice = options.transport;
  if (typeof choice === "function") return Promise.resolve(choice);
  if (choice !== undefined && choice !== "fetch" && choice !== "node") {
    return Promise.reject(
      invalid(provider, `transport is ${JSON.stringify(choice)}; it takes "fetch", "node" or a function.`),
    );
  }
  if (options.fetch !== undefined) {
    if (choice === "node") {
      return Promise.reject(
        invalid(provider, 'the fetch option only applies to transport "fetch"; drop one of the two.'),
      );
    }
    return Promise.resolve(fetchTransport(options.fetch));
  }
  let name: "fetch" | "node";
  try {
    name = choice ?? environmentChoice(provider) ?? defaultTransportName();
  } catch (error) {
    return Promise.reject(error);
  }
  return name === "node" ? loadNodeTransport(provider) : Promise.resolve(globalFetchTransport);
}
