import { checkOptions, type OptionRule, typeName } from "../message/option-check.js";
import type { ChatModel } from "../model/core.js";
import { PricingTable } from "../model/pricing/index.js";
import { SpecChatModel } from "../model/spec-chat-model.js";
import { Toolkit } from "../tool/index.js";
import type { TaintOptions } from "./taint-options.js";
import type { AgentOptions } from "./types.js";

const EXAMPLE_SPEC = `a model spec such as "openai:gpt-4o-mini"`;

/** What is wrong with a model option: it must be a spec string or a ChatModel (stream + countTokens). */
function checkModel(value: unknown): string | undefined {
  if (typeof value === "string") return value.trim() === "" ? `expected ${EXAMPLE_SPEC}, got ""` : undefined;
  const model = value as Partial<Record<keyof ChatModel, unknown>>;
  const missing = (["stream", "countTokens"] as const).filter((key) => typeof model[key] !== "function");
  if (missing.length === 0) return undefined;
  return `expected a ChatModel (with stream() and countTokens()) or ${EXAMPLE_SPEC}; this object has no ${missing.join("() or ")}()`;
}

function checkTools(value: unknown): string | undefined {
  if (!Array.isArray(value)) {
    return value instanceof Toolkit
      ? undefined
      : "expected an array of tools or a Toolkit, got an object that is neither";
  }
  for (const [i, tool] of value.entries()) {
    const candidate = tool as { name?: unknown; call?: unknown } | null;
    if (typeof candidate !== "object" || candidate === null)
      return `[${i}]: expected a tool, got ${typeName(tool)}`;
    if (typeof candidate.name !== "string" || typeof candidate.call !== "function") {
      return `[${i}]: expected a tool (an object with a name and call(), e.g. from functionTool), got an object with ${
        Object.keys(candidate).join(", ") || "no keys"
      }`;
    }
  }
  return undefined;
}

const GUARDRAIL_LISTS = ["input", "output", "toolInput", "toolResult"] as const;

/** What is wrong with a guardrails option: each list an array of guardrails (a name and check()). */
function checkGuardrails(value: unknown): string | undefined {
  const options = value as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (key === "onToolTrip") {
      if (options[key] !== "replace" && options[key] !== "stop")
        return `onToolTrip: expected "replace" or "stop", got ${String(options[key])}`;
      continue;
    }
    if (key === "lookAhead") {
      const lookAhead = options[key];
      if (!Number.isInteger(lookAhead) || (lookAhead as number) < 1)
        return `lookAhead: expected an integer ≥ 1 (characters held back), got ${String(lookAhead)}`;
      continue;
    }
    if (!(GUARDRAIL_LISTS as readonly string[]).includes(key))
      return `${key}: unknown list (known: ${GUARDRAIL_LISTS.join(", ")}, onToolTrip, lookAhead)`;
    const list = options[key];
    if (!Array.isArray(list)) return `${key}: expected an array of guardrails, got ${typeName(list)}`;
    for (const [i, guardrail] of list.entries()) {
      const candidate = guardrail as { name?: unknown; check?: unknown } | null;
      if (typeof candidate?.name !== "string" || typeof candidate.check !== "function")
        return `${key}[${i}]: expected a guardrail (an object with a name and check()), got ${typeName(guardrail)}`;
      if ((guardrail as { streamed?: unknown }).streamed === true && key !== "output")
        return `${key}[${i}]: "${candidate.name}" is streamed, which only an output guardrail can be`;
    }
  }
  return undefined;
}

/** Every TaintOptions key (kept in step with TaintOptions by the `satisfies`). */
const TAINT_KEYS = Object.keys({
  tools: true,
  sources: true,
  filesOutsideWorkspace: true,
  providerWebTools: true,
  knowledge: true,
  observed: true,
  scope: true,
  whileTainted: true,
} satisfies Record<keyof TaintOptions, true>);

/** What is wrong with a taint option: its keys, and the values of `scope` and `observed`. */
function checkTaint(value: unknown): string | undefined {
  const options = value as Record<string, unknown>;
  for (const key of Object.keys(options)) {
    if (!TAINT_KEYS.includes(key)) return `${key}: unknown option (known: ${TAINT_KEYS.join(", ")})`;
  }
  const { scope, observed } = options;
  if (scope !== undefined && scope !== "memory" && scope !== "reply")
    return `scope: expected "memory" or "reply", got ${JSON.stringify(scope) ?? typeName(scope)}`;
  if (observed === undefined || typeof observed === "boolean") return undefined;
  const trust = (observed as { trust?: unknown } | null)?.trust;
  if (
    typeof observed !== "object" ||
    !Array.isArray(trust) ||
    trust.some((name) => typeof name !== "string" || name === "")
  )
    return `observed: expected true, false or { trust: [names] } (non-empty strings), got ${JSON.stringify(observed) ?? typeName(observed)}`;
  return undefined;
}

const positiveInteger = (value: unknown) =>
  Number.isInteger(value) && (value as number) >= 1 ? undefined : `expected an integer ≥ 1, got ${value}`;

const MODEL_RULE: OptionRule = {
  type: ["object", "string"],
  expected: `a ChatModel or ${EXAMPLE_SPEC}`,
  check: checkModel,
};

/** Every AgentOptions key and what it must be (kept in step with AgentOptions by the `satisfies`). */
const AGENT_OPTION_RULES = {
  name: {
    type: "string",
    required: true,
    check: (value) => ((value as string).trim() === "" ? "must not be empty" : undefined),
  },
  systemPrompt: { type: "string" },
  model: { ...MODEL_RULE, required: true },
  fallbackModel: MODEL_RULE,
  toolkit: { type: ["array", "object"], expected: "an array of tools or a Toolkit", check: checkTools },
  maxIters: { type: "number", check: positiveInteger },
  permission: { type: "object" },
  decidePermission: { type: "function" },
  approvers: { type: "object" },
  onPauseChange: {
    type: "string",
    check: (value) =>
      value === "ask_again" || value === "continue" ? undefined : 'expected "ask_again" or "continue"',
  },
  state: { type: "object" },
  sessionId: { type: "string" },
  checkpoint: { type: "function" },
  middlewares: { type: "array" },
  context: { type: "object" },
  guardrails: { type: "object", check: checkGuardrails },
  taint: { type: "object", check: checkTaint },
  pricing: {
    type: "object",
    expected: "a PricingTable (from pricingTable())",
    check: (value) =>
      value instanceof PricingTable ? undefined : "expected a PricingTable, from pricingTable()",
  },
  skills: { type: "array" },
} satisfies Record<keyof AgentOptions, OptionRule>;

/** Names other APIs use for an Agent option, with the option to use instead. */
const AGENT_OPTION_ALIASES: Record<string, string> = {
  tools:
    "the Agent takes its tools as `toolkit` (an array of tools or a Toolkit); `tools` is the service config's name for them",
  instructions: "the Agent's instructions are `systemPrompt`",
  prompt: "the Agent's instructions are `systemPrompt`",
  middleware: "use `middlewares` (an array)",
};

/**
 * Checks the options a JavaScript caller gave `new Agent(...)`, once: unknown keys (with a "did you
 * mean"), missing name or model, values of the wrong type. Throws a ValidationError naming the key.
 */
export function checkAgentOptions(options: unknown): asserts options is AgentOptions {
  checkOptions("Agent options", options, AGENT_OPTION_RULES, AGENT_OPTION_ALIASES);
}

/** A model option as a ChatModel: a spec string becomes a SpecChatModel (checked now, built on first use). */
export function chatModelOf(model: ChatModel | string): ChatModel {
  return typeof model === "string" ? new SpecChatModel(model) : model;
}
