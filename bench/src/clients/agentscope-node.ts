/**
 * agentscope with its HTTP transport chosen explicitly: `node` (node:http, keep-alive agent) or
 * `fetch`, the same Agent work as the `agentscope` client (which takes the runtime's default), so the
 * two transports are compared side by side whatever the default is.
 */
import { agentscopeClient } from "./agentscope.js";

export const agentscopeNodeClient = (baseURL: string) => agentscopeClient(baseURL, undefined, "node");
export const agentscopeFetchClient = (baseURL: string) => agentscopeClient(baseURL, undefined, "fetch");
