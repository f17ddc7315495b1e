import { AgentScopeError, type ErrorType } from "../message/index.js";
import { boundaryDenial } from "./boundary.js";
import type { PermissionContext, PermissionDecision, PermissionSubject } from "./types.js";

/** Thrown when a tool is about to run with an input (or as a call) other than the one decided; nothing runs. */
export class UndecidedInputError extends AgentScopeError {
  static override readonly errorType: ErrorType = "invalid_state";
  constructor(message: string) {
    super(message);
    this.name = "UndecidedInputError";
  }
}

let mint: (call: CallToDecide, input: string, decision: PermissionDecision, by: Approver) => DecidedCall;
/** Set only while `mint` constructs: the constructor refuses at run time too (a cast cannot mint). */
let minting = false;

/** Who let the call run: the engine's decision, or a person's approval of that exact ask. */
export type Approver = "engine" | "person";

/**
 * Leave to run one tool call with exactly one input. Only `decideCall` mints one (the constructor is
 * private), after the decision for that input allowed it or a person approved that very ask. The
 * agent's executor takes nothing else, and `run` refuses any other call or input.
 */
export class DecidedCall {
  static {
    mint = (call, input, decision, by) => {
      minting = true;
      try {
        return new DecidedCall(call.call.id, call.call.name, input, decision, by);
      } finally {
        minting = false;
      }
    };
  }

  readonly #input: string;

  private constructor(
    readonly toolCallId: string,
    readonly toolName: string,
    input: string,
    /** The engine's decision for this input (an ask when a person approved it). */
    readonly decision: PermissionDecision,
    readonly approvedBy: Approver,
  ) {
    if (!minting) throw new TypeError("a DecidedCall is minted only by decideCall, the permission gate");
    this.#input = input;
    Object.freeze(this);
  }

  /** Whether `input` is exactly the decided input (compared as canonical JSON). */
  matches(input: unknown): boolean {
    return canonicalInput(input) === this.#input;
  }

  /**
   * Runs `execute` with `input` when this is the decision for that call and that exact input;
   * otherwise throws an UndecidedInputError and `execute` is never called.
   */
  run<T>(call: { id: string; name: string }, input: unknown, execute: (input: unknown) => T): T {
    if (call.id !== this.toolCallId || call.name !== this.toolName) {
      throw new UndecidedInputError(
        `the permission decision is for ${this.toolName} call "${this.toolCallId}", not ${call.name} call "${call.id}"`,
      );
    }
    if (!this.matches(input)) {
      throw new UndecidedInputError(
        `${call.name} call "${call.id}" was about to run with arguments other than the ones its permission was decided for; it did not run`,
      );
    }
    return execute(input);
  }
}

/** What a person's approval of a call says, for the gate to weigh. */
export type Approval =
  /** Approved with the input the call has: the answer is the decision for it, but a deny still wins. */
  | { edited: false }
  /** Approved with arguments the person edited; `answered` is the `askKey` of the ask they saw (none: ""). */
  | { edited: true; answered: string };

/** One call for the gate: what it is, its parsed arguments, and how to decide it. */
export interface CallToDecide {
  call: { id: string; name: string };
  subject: PermissionSubject;
  /** The parsed arguments, exactly as they will run. */
  input: unknown;
  context: PermissionContext;
  /** The decision maker: the engine, or the agent's chain around it (middleware, a custom decider). */
  decide(input: unknown, context: PermissionContext): Promise<PermissionDecision>;
  /** A person's approval of this call, when it has one. */
  approval?: Approval;
}

/** The gate's verdict: leave to run (a DecidedCall), or the decision that refuses or asks. */
export type CallVerdict =
  | { behavior: "allow"; decided: DecidedCall; decision: PermissionDecision }
  | { behavior: "deny"; decision: PermissionDecision }
  | { behavior: "ask"; decision: PermissionDecision };

/**
 * The one gate every tool call passes before it runs. The session's boundary denies first (no
 * decider, middleware or approval can lift it); then the decider decides this exact input. A deny
 * refuses; an allow mints the DecidedCall. An ask is settled by a person's approval when the input
 * is the one they approved, or when they edited it and it needs the same ask they answered;
 * otherwise it asks (again). A decider that answers anything but allow, deny or ask is a deny.
 */
export async function decideCall(request: CallToDecide): Promise<CallVerdict> {
  const { subject, input, context, approval } = request;
  const canonical = canonicalInput(input);
  const outside = boundaryDenial(subject, input, context);
  if (outside) return { behavior: "deny", decision: outside };
  // Checked once, here: the decider (the engine) need not walk the paths against it again.
  const decision = await request.decide(input, context.boundary ? withoutBoundary(context) : context);
  const behavior = (decision as { behavior?: unknown } | undefined)?.behavior;
  if (behavior === "allow")
    return { behavior, decided: mint(request, canonical, decision, "engine"), decision };
  if (behavior === "ask") {
    if (approval && (!approval.edited || askKey(decision) === approval.answered)) {
      return { behavior: "allow", decided: mint(request, canonical, decision, "person"), decision };
    }
    return { behavior, decision };
  }
  if (behavior === "deny") return { behavior, decision };
  return {
    behavior: "deny",
    decision: {
      behavior: "deny",
      reason: `the permission check of ${subject.name} answered ${JSON.stringify(behavior)}, not allow, deny or ask`,
    },
  };
}

function withoutBoundary(context: PermissionContext): PermissionContext {
  const { boundary: _checked, ...rest } = context;
  return rest;
}

/** What makes two asks the same ask for a person: safety, reason and the rules offered ("" for no ask). */
export function askKey(decision: PermissionDecision | undefined): string {
  if (decision?.behavior !== "ask") return "";
  const rules = decision.suggestedRules ?? [];
  return `ask\u0000${decision.safety ? "safety" : ""}\u0000${decision.reason}\u0000${rules.join("\u0000")}`;
}

/** The canonical form a decision is bound to: the JSON of the parsed arguments. */
export function canonicalInput(input: unknown): string {
  try {
    return JSON.stringify(input) ?? "undefined";
  } catch (error) {
    throw new UndecidedInputError(
      `the arguments cannot be written as JSON (${error instanceof Error ? error.message : String(error)}), so no permission can be bound to them`,
    );
  }
}
