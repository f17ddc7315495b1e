import type { Middleware } from "../../../agent/index.js";
import type { ServiceAgentOptions } from "./service-runtime-options.js";
import type { SweepJob } from "./sweeper.js";

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
  /** Timed work it needs on every replica (registered with the runtime's sweeper). */
  sweepJobs?(): SweepJob[];
}

const links = new WeakMap<Middleware, RuntimeLink>();

/**
 * Registers `link` with a middleware of the agents it serves: a ServiceRuntime built over an agent
 * with that middleware attaches it (the middleware goes along when the agent's options are copied,
 * as the workspaces do).
 */
export function linkToRuntime(middleware: Middleware, link: RuntimeLink): void {
  links.set(middleware, link);
}

/** The links registered with these agents' middleware, each once. */
export function runtimeLinksOf(agents: readonly ServiceAgentOptions[]): RuntimeLink[] {
  const found = new Set<RuntimeLink>();
  for (const agent of agents)
    for (const middleware of agent.middlewares ?? []) {
      const link = links.get(middleware);
      if (link) found.add(link);
    }
  return [...found];
}

/** The links of one runtime: attached once, told of every run's end, asked whether a session resumes. */
export class RuntimeLinks<R = unknown> {
  readonly #links: RuntimeLink<R>[];

  constructor(agents: readonly ServiceAgentOptions[]) {
    this.#links = runtimeLinksOf(agents) as RuntimeLink<R>[];
  }

  attach(runtime: R): void {
    for (const link of this.#links) link.attach(runtime);
  }

  runEnded(sessionId: string): void {
    for (const link of this.#links) link.runEnded(sessionId);
  }

  /** The timed work every link needs on every replica. */
  sweepJobs(): SweepJob[] {
    return this.#links.flatMap((link) => link.sweepJobs?.() ?? []);
  }

  /** Whether any link resumes the session (a link that fails to say does not). */
  async resumes(sessionId: string): Promise<boolean> {
    for (const link of this.#links) if (await link.resumes(sessionId).catch(() => false)) return true;
    return false;
  }
}
