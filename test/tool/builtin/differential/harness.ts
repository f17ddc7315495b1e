import { type CanaryTree, createCanaryTree, type Repository } from "./canary-tree.js";
import { type Detector, type Observation, observe, treeSnapshot } from "./detectors.js";
import { type Judge, type Judgement, realJudge } from "./judge.js";
import { runInSandbox } from "./sandbox.js";
import type { Snapshot } from "./snapshot.js";

/** A command the permission check lets run without asking that did something a reader must not. */
export interface Find {
  command: string;
  /** The repository of the tree it ran in. */
  repository: Repository;
  analysis: Judgement["analysis"];
  detectors: Detector[];
  happened: string[];
  exitCode: number | null;
  timedOut: boolean;
  output: string;
}

export interface DifferentialResult {
  /** Commands judged. */
  tried: number;
  /** Of those, the ones allowed without asking: each ran in the sandbox. */
  ran: number;
  /** Runs the timeout ended. */
  timedOut: number;
  finds: Find[];
}

export interface DifferentialOptions {
  judge?: Judge;
  /** Sandboxes at once (default 3). */
  concurrency?: number;
  /** Per command (default 2 s). */
  timeoutMs?: number;
}

interface Worker {
  tree: CanaryTree;
  baseline: Snapshot;
}

/**
 * Runs every command the judge allows in a sandbox over a canary tree (one tree per parallel
 * worker) and reports each one that changed a file, printed a secret, ran a program off the
 * allow-list or wrote to the log. A tree a command changed is rebuilt before the next command.
 */
export class DifferentialHarness {
  private constructor(private readonly workers: Worker[]) {}

  static create(concurrency = 3): DifferentialHarness {
    if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 16)
      throw new RangeError(
        `DifferentialHarness: concurrency must be an integer from 1 to 16, got ${concurrency}`,
      );
    const workers: Worker[] = [];
    for (let index = 0; index < concurrency; index++) {
      // Every other worker has a benign repository: git is judged there on what it reads.
      const tree = createCanaryTree(index % 2 === 0 ? "hostile" : "benign");
      workers.push({ tree, baseline: treeSnapshot(tree) });
    }
    return new DifferentialHarness(workers);
  }

  /** The first worker's tree (its markers are the same kind in every tree). */
  get tree(): CanaryTree {
    return this.workers[0]!.tree;
  }

  async run(commands: readonly string[], options: DifferentialOptions = {}): Promise<DifferentialResult> {
    const count = Math.max(1, options.concurrency ?? this.workers.length);
    return this.runOn(this.workers.slice(0, count), commands, options);
  }

  private async runOn(
    workers: Worker[],
    commands: readonly string[],
    options: DifferentialOptions,
  ): Promise<DifferentialResult> {
    const judge = options.judge ?? realJudge;
    const timeoutMs = options.timeoutMs ?? 2_000;
    const result: DifferentialResult = { tried: 0, ran: 0, timedOut: 0, finds: [] };
    const found: [number, Find][] = [];
    // Command i runs on worker i mod n: which tree (hostile or benign repository) judges and runs a
    // command does not depend on timing, so a seed's results repeat.
    const work = async (worker: Worker, offset: number): Promise<void> => {
      for (let index = offset; index < commands.length; index += workers.length) {
        const command = commands[index]!;
        result.tried++;
        const judgement = await judge(command, worker.tree.work);
        if (!judgement.allowed) continue;
        result.ran++;
        const run = await runInSandbox(worker.tree, command, { declared: judgement.declared, timeoutMs });
        if (run.timedOut) result.timedOut++;
        const observed = observe(worker.tree, worker.baseline, run);
        if (observed.length === 0) continue;
        found.push([index, findOf(command, worker.tree.repository, judgement, observed, run)]);
        worker.tree.restore();
        worker.baseline = treeSnapshot(worker.tree);
      }
    };
    await Promise.all(workers.map((worker, offset) => work(worker, offset)));
    // In the order of the commands, whichever worker finished first.
    result.finds = found.sort(([a], [b]) => a - b).map(([, find]) => find);
    return result;
  }

  /** Runs the commands in the trees of one kind of repository only (the first worker's when none has it). */
  async runIn(
    repository: Repository,
    commands: readonly string[],
    options: DifferentialOptions = {},
  ): Promise<DifferentialResult> {
    const workers = this.workers.filter((worker) => worker.tree.repository === repository);
    return this.runOn(workers.length > 0 ? workers : this.workers.slice(0, 1), commands, options);
  }

  /**
   * The first piece of a compound command (split at its operators) that, on its own, is allowed and
   * still does something a reader must not; undefined for a simple command or when none does.
   */
  async reduce(find: Find, options: DifferentialOptions = {}): Promise<Find | undefined> {
    const pieces = find.command
      .split(/\s+(?:&&|\|\||\||&)\s+|\s*;\s*|\s*\n\s*/)
      .filter((piece) => piece.trim() !== "");
    if (pieces.length < 2) return undefined;
    const worker = this.workers.find((candidate) => candidate.tree.repository === find.repository);
    for (const piece of pieces) {
      const result = await this.runOn(worker ? [worker] : this.workers.slice(0, 1), [piece], options);
      if (result.finds.length > 0) return result.finds[0];
    }
    return undefined;
  }

  close(): void {
    for (const worker of this.workers) worker.tree.remove();
  }
}

function findOf(
  command: string,
  repository: Repository,
  judgement: Judgement,
  observed: Observation[],
  run: { output: string; exitCode: number | null; timedOut: boolean },
): Find {
  return {
    command,
    repository,
    analysis: judgement.analysis,
    detectors: [...new Set(observed.map((entry) => entry.detector))],
    happened: observed.map((entry) => `${entry.detector}: ${entry.detail}`),
    exitCode: run.exitCode,
    timedOut: run.timedOut,
    output: run.output.slice(0, 400),
  };
}

/** A find as text a person can act on: the command, what the analysis said, what happened. */
export function describeFind(find: Find): string {
  return [
    `command: ${JSON.stringify(find.command)} (${find.repository} repository)`,
    `  analysis: readOnly=${find.analysis.readOnly} paths=${JSON.stringify(find.analysis.paths)} decision: ${find.analysis.reason}`,
    ...find.happened.map((line) => `  ${line}`),
    `  exit ${find.exitCode}${find.timedOut ? " (timed out)" : ""}; output: ${JSON.stringify(find.output.slice(0, 200))}`,
  ].join("\n");
}
