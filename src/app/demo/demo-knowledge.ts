import type { KnowledgeService } from "../server/http/knowledge-service.js";

/** The sample knowledge base the demo gives its user. */
export const DEMO_KNOWLEDGE_BASE = "demo-handbook";

/** A short handbook: what the demo's console shows, for the demo agent's excerpts and a first search. */
export const DEMO_HANDBOOK = `# The agentscope demo

## The console

The console streams each reply as it is written. Tool calls show their arguments and output; a call
that changes something waits for your approval, with a diff of the file it would write.

## Panels

Files lists the session's workspace. Memories lists what the agent remembered about you. Knowledge
lists your knowledge bases: upload documents, follow their indexing and search them.

## Hints

Before each reply the agent reads excerpts of your knowledge bases and what it remembers about you.
The console shows them collapsed above the reply, under "Context the agent was given".
`;

/**
 * Gives `user` the sample knowledge base with the handbook, unless they have it already (the list
 * of bases lives in the state store, so a restarted demo keeps it). Indexing runs in the background.
 */
export async function seedDemoKnowledge(knowledge: KnowledgeService, user: string): Promise<boolean> {
  if ((await knowledge.list(user)).some((base) => base.name === DEMO_KNOWLEDGE_BASE)) return false;
  await knowledge.create(user, DEMO_KNOWLEDGE_BASE, "A sample base: what the demo console shows");
  await knowledge.startIndexing(user, DEMO_KNOWLEDGE_BASE, {
    name: "handbook.md",
    type: "text/markdown",
    bytes: new TextEncoder().encode(DEMO_HANDBOOK),
  });
  return true;
}
