import type { ConfirmResult, UserConfirmResultEvent } from "../event/index.js";
import type { ToolCallBlock } from "../message/index.js";
import { formatRule } from "../permission/index.js";
import type { PauseFingerprint } from "../state/index.js";
import type { Tool } from "../tool/index.js";
import type { ReplyRun } from "./reply-run.js";
import { writeResult } from "./result-events.js";

/** A short digest of a JSON value (FNV-1a, 2 × 32 bits): enough to tell a schema changed. */
function digest(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x811c9dc5) >>> 0;
  }
  return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
}

/** The permission behaviour a tool declares, as the names of the flags and hooks it has. */
function behaviourOf(tool: Tool): string[] {
  const flags: Array<[string, unknown]> = [
    ["readOnly", tool.readOnly],
    ["concurrencySafe", tool.concurrencySafe],
    ["editsFiles", tool.editsFiles],
    ["external", tool.external],
    ["idempotent", tool.idempotent],
    ["isReadOnly()", tool.isReadOnly],
    ["checkPermissions()", tool.checkPermissions],
    ["matchRule()", tool.matchRule],
  ];
  return flags.filter(([, value]) => Boolean(value)).map(([name]) => name);
}

/** What `call` depends on now: its tool, and the agent's rules, mode and model. */
export function fingerprintOf(run: ReplyRun, tool: Tool): PauseFingerprint {
  const defaults = run.config.fingerprint?.permissionDefaults ?? {};
  return {
    tool: tool.name,
    schema: digest(tool.inputSchema),
    behaviour: behaviourOf(tool),
    rules: (defaults.rules ?? []).map((rule) => formatRule(rule)).sort(),
    mode: defaults.mode ?? "default",
    model: run.config.model.name,
  };
}

/** Stores the fingerprint of each call the reply now waits on (asked, or submitted for external execution). */
export function storeFingerprints(run: ReplyRun, calls: readonly ToolCallBlock[]): void {
  const reply = run.state.replyContext;
  if (!reply) return;
  for (const call of calls) {
    const tool = run.findTool(call.name);
    if (!tool) continue;
    reply.fingerprints = { ...reply.fingerprints, [call.id]: fingerprintOf(run, tool) };
  }
}

/** What differs between the fingerprint a call paused with and the one it has now, one line each. */
export function changesBetween(before: PauseFingerprint, now: PauseFingerprint): string[] {
  const changes: string[] = [];
  if (before.schema !== now.schema) changes.push(`the input schema of ${now.tool} changed`);
  const added = now.behaviour.filter((b) => !before.behaviour.includes(b));
  const removed = before.behaviour.filter((b) => !now.behaviour.includes(b));
  if (added.length || removed.length)
    changes.push(
      `the permission behaviour of ${now.tool} changed (${[...added.map((b) => `+${b}`), ...removed.map((b) => `-${b}`)].join(", ")})`,
    );
  const newRules = now.rules.filter((r) => !before.rules.includes(r));
  const oldRules = before.rules.filter((r) => !now.rules.includes(r));
  if (newRules.length || oldRules.length)
    changes.push(
      `the agent's rules changed (${[...newRules.map((r) => `+${r}`), ...oldRules.map((r) => `-${r}`)].join(", ")})`,
    );
  if (before.mode !== now.mode) changes.push(`the agent's mode changed (${before.mode} → ${now.mode})`);
  if (before.model !== now.model) changes.push(`the model changed (${before.model} → ${now.model})`);
  return changes;
}

/**
 * Screens a confirmation against what its calls paused with: an answer for a call whose tool is
 * gone fails closed (an error result, a `changed` record); one for a call whose fingerprint changed
 * is not taken under `ask_again` (a `changed` record lists the differences, and the call is asked
 * again with them as its reason: `run.reasks`). Calls that paused without a fingerprint (stored
 * before fingerprints existed) pass. Returns the confirmation with the answers that are taken.
 */
export function screenChanges(run: ReplyRun, input: UserConfirmResultEvent): UserConfirmResultEvent {
  const fingerprints = run.state.replyContext?.fingerprints;
  if (!fingerprints) return input;
  const policy = run.config.fingerprint?.onPauseChange ?? "ask_again";
  const taken: ConfirmResult[] = [];
  for (const answer of input.confirmResults) {
    const call = run.findCall(answer.toolCall.id)!;
    const before = fingerprints[call.id];
    const tool = run.findTool(call.name);
    if (before === undefined) {
      taken.push(answer);
      continue;
    }
    if (!tool) {
      const reason = `the tool ${call.name} was removed since this call paused; it was not run`;
      record(run, call, [`${call.name} was removed`], reason);
      writeResult(run, call, "error", `Error: ${reason}.`);
      continue;
    }
    const changes = changesBetween(before, fingerprintOf(run, tool));
    if (changes.length === 0 || policy === "continue") {
      taken.push(answer);
      continue;
    }
    const reason = `Asked again: ${changes.join("; ")} since this call was asked.`;
    record(run, call, changes, reason);
    run.reasks.set(call.id, reason);
  }
  return taken.length === input.confirmResults.length ? input : { ...input, confirmResults: taken };
}

function record(run: ReplyRun, call: ToolCallBlock, changes: string[], reason: string): void {
  run.emit("DECISION", {
    toolCallId: call.id,
    toolName: call.name,
    outcome: "changed",
    input: call.input,
    mode: run.state.permission.mode,
    actor: "engine",
    channel: "engine",
    reason,
    changes,
  });
}
