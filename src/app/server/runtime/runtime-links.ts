import type { ServiceAgentOptions } from "./service-runtime-options.js";

/**
 * A part of the service wired at config time that needs the runtime once it exists (the service's
 * `agent_spawn`: sub-agent sessions). The runtime attaches it, tells it of each run's end, and asks
 * it whether a session whose cut-off reply recovery closed continues on its own.
 */
export interface RuntimeLink<R = unknown> {
  attach(runtime: R): void;
  /** A run of `sessionId` has ended or paused (its lease is free). Never throws. */
  runEnded(sessionId: string): void;
  /** Whether a session recovery closed resumes with a new reply (as `resumeOnRecovery` does for all). */
  resumes(sessionId: string): Promise<boolean>;
}

const links = new WeakMap<ServiceAgentOptions, RuntimeLink>();

/** Registers `link` with the agent it serves; a ServiceRuntime built over that agent attaches it. */
export function linkToRuntime(agent: ServiceAgentOptions, link: RuntimeLink): void {
  links.set(agent, link);
}

/** The links registered with these agents, each once. */
export function runtimeLinksOf(agents: readonly ServiceAgentOptions[]): RuntimeLink[] {
  const found = new Set<RuntimeLink>();
  for (const agent of agents) {
    const link = links.get(agent);
    if (link) found.add(link);
  }
  return [...found];
}
