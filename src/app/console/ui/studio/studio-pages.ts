import type { AgentScopeClient } from "../../../../client/index.js";
import type { AgentEvent } from "../../../../event/types.js";
import { h } from "../dom.js";
import { FilesPanel } from "../files-panel.js";
import { KnowledgePanel } from "../knowledge-panel.js";
import { renderMemories } from "../memories.js";
import { agentInspector } from "./agent-inspector.js";
import { costView } from "./cost-view.js";
import { decisionLog } from "./decision-log.js";
import { evalView } from "./eval-view.js";
import { StateVersions } from "./state-versions.js";
import { toolPlayground } from "./tool-playground.js";
import { traceWaterfall } from "./trace-waterfall.js";

export type StudioTab =
  | "agent"
  | "tools"
  | "state"
  | "trace"
  | "knowledge"
  | "memories"
  | "files"
  | "evals"
  | "decisions"
  | "cost";

/** What a page draws from: the page's client, the open session (if any) and its event log. */
export interface PageContext {
  client: AgentScopeClient;
  sessionId: string | undefined;
  events(): Promise<AgentEvent[]>;
}

/** One page of the studio: its name in the navigation and how it draws itself. */
export interface StudioPage {
  id: StudioTab;
  name: string;
  /** Needs an open session (else the studio says to start one). */
  session: boolean;
  draw(context: PageContext): Promise<HTMLElement>;
}

/**
 * The studio's pages in their navigation order. The knowledge, memories and files pages are the
 * chat page's own panels (knowledge-panel.ts, memories.ts, files-panel.ts), drawn into the studio;
 * each instance lives as long as the studio, so an upload's progress survives a page switch.
 */
export function studioPages(client: AgentScopeClient): StudioPage[] {
  const knowledgeBody = h("div", { class: "studio-knowledge" });
  const knowledge = new KnowledgePanel(knowledgeBody, client);
  const filesBody = h("div", { class: "studio-files" });
  const files = new FilesPanel(filesBody, client);
  const versions = new StateVersions(client);
  return [
    {
      id: "agent",
      name: "Agent",
      session: true,
      draw: async (c) => agentInspector(await c.client.inspectAgent(c.sessionId!)),
    },
    {
      id: "tools",
      name: "Tools",
      session: true,
      draw: async (c) => toolPlayground(c.client, c.sessionId!, await c.client.inspectAgent(c.sessionId!)),
    },
    { id: "state", name: "State", session: true, draw: (c) => versions.draw(c.sessionId!) },
    { id: "trace", name: "Trace", session: true, draw: async (c) => traceWaterfall(await c.events()) },
    {
      id: "knowledge",
      name: "Knowledge",
      session: false,
      draw: async () => {
        await knowledge.refresh();
        return knowledgeBody;
      },
    },
    {
      id: "memories",
      name: "Memories",
      session: false,
      draw: async (c) => {
        const body = h("div", { class: "studio-memories" });
        await renderMemories(body, c.client);
        return body;
      },
    },
    {
      id: "files",
      name: "Files",
      session: true,
      draw: async (c) => {
        files.setSession(c.sessionId);
        await files.refresh();
        return filesBody;
      },
    },
    { id: "evals", name: "Evals", session: false, draw: (c) => evalView(c.client, c.sessionId) },
    {
      id: "decisions",
      name: "Decisions",
      session: true,
      draw: async (c) => decisionLog(await c.client.decisions(c.sessionId!)),
    },
    {
      id: "cost",
      name: "Cost",
      session: true,
      draw: async (c) => costView(await c.client.messages(c.sessionId!)),
    },
  ];
}
