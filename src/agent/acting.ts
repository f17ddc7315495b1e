import type { AgentEvent } from "../event/index.js";
import { type ToolCallBlock, toErrorInfo } from "../message/index.js";
import type { PermissionDecision } from "../permission/index.js";
import { type Tool, ToolError, ToolInputError } from "../tool/index.js";
import { abortReason, untilAborted } from "./abort.js";
import { lastStepCalls, openCalls, resultsOf, splitBatches } from "./open-calls.js";
import { ReplyCore } from "./reply-core.js";
import { STRUCTURED_OUTPUT_TOOL } from "./structured-output.js";
import { chunkToPart, isAsyncIterable, valueToParts } from "./tool-output.js";

type Ask = { call: ToolCallBlock; decision: PermissionDecision };

/** Acting: gating tool calls (validation, permission) and running them, batch by batch. */
export abstract class ActingRun extends ReplyCore {
  protected lookup(name: string): Tool | undefined {
    if (this.structuredTool && name === STRUCTURED_OUTPUT_TOOL) return this.structuredTool;
    return this.config.toolkit.isActive(name) ? this.config.toolkit.get(name) : undefined;
  }

  /** Gates and runs open calls batch by batch; returns true when the reply paused. */
  protected async *act(open: ToolCallBlock[]): AsyncGenerator<AgentEvent, boolean> {
    const batches = splitBatches(open, (call) => this.lookup(call.name)?.concurrencySafe === true);
    for (const batch of batches) {
      const run: Array<{ call: ToolCallBlock; tool: Tool }> = [];
      const asks: Ask[] = [];
      const external: ToolCallBlock[] = [];
      for (const call of batch.calls) {
        if (call.state === "asking" || call.state === "submitted") continue;
        const tool = call.state === "allowed" ? this.lookup(call.name) : await this.gate(call, asks);
        if (!tool) continue;
        if (tool.external) external.push(call);
        else run.push({ call, tool });
      }
      if (external.length > 0)
        this.emit("REQUIRE_EXTERNAL_EXECUTION", { toolCalls: external.map(snapshotCall) });
      yield* this.drain();
      if (run.length > 0) yield* this.runTools(run, batch.parallel);
      if (this.options.signal?.aborted || this.stopReason !== undefined) return false;

      const waiting = batch.calls.filter((call) => call.state === "asking" || call.state === "submitted");
      const asking = waiting.filter(
        (call) => call.state === "asking" || asks.some((a) => a.call.id === call.id),
      );
      for (const call of asking) {
        if (!asks.some((a) => a.call.id === call.id))
          asks.push({ call, decision: { behavior: "ask", reason: "" } });
      }
      if (asks.length > 0 || waiting.length > 0) {
        if (asks.length > 0) {
          this.emit("REQUIRE_USER_CONFIRM", {
            toolCalls: asks.map(({ call, decision }) => {
              const entry: ToolCallBlock & { reason?: string; suggestedRules?: string[] } =
                snapshotCall(call);
              if (decision.reason) entry.reason = decision.reason;
              if (decision.suggestedRules?.length) entry.suggestedRules = decision.suggestedRules;
              return entry;
            }),
          });
        }
        const reply = this.state.replyContext!;
        reply.waitingFor = openCalls(this.msg).some((c) => c.state === "asking")
          ? "user_confirm"
          : "external_execution";
        yield* this.drain();
        return true;
      }
    }
    this.noteAllDenied();
    yield* this.drain();
    return false;
  }

  /** Emits ALL_TOOLS_DENIED when every call of the last reasoning step was denied. */
  protected noteAllDenied(): void {
    const calls = lastStepCalls(this.msg);
    if (calls.length === 0) return;
    const results = resultsOf(this.msg, new Set(calls.map((call) => call.id)));
    if (results.length === calls.length && results.every((result) => result.state === "denied")) {
      this.emit("ALL_TOOLS_DENIED", { deniedToolCalls: calls.map(snapshotCall) });
    }
  }

  /**
   * Validates a pending call and asks the permission engine. Returns the tool when it may run (or be
   * submitted); writes an error or denied result, or records an ask, otherwise.
   */
  protected async gate(call: ToolCallBlock, asks: Ask[]): Promise<Tool | undefined> {
    const tool = this.lookup(call.name);
    if (!tool) {
      const names = [
        ...this.config.toolkit.schemas().map((s) => s.name),
        ...(this.structuredTool ? [STRUCTURED_OUTPUT_TOOL] : []),
      ];
      this.writeResult(
        call,
        "error",
        `Error: there is no tool named "${call.name}". Available tools: ${names.join(", ") || "none"}.`,
      );
      return undefined;
    }
    const parsed = this.parseArguments(call, tool);
    if (parsed === PARSE_FAILED) return undefined;
    if (tool === this.structuredTool) return tool;
    let decision: PermissionDecision;
    try {
      decision = this.mw.empty
        ? await this.config.decide(tool, parsed, this.state.permission)
        : await this.mw.decide({ tool, input: parsed, permission: this.state.permission });
    } catch (error) {
      this.writeResult(call, "error", `Error: the permission check failed: ${toErrorInfo(error).message}`);
      return undefined;
    }
    if (decision.behavior === "deny") {
      this.writeResult(call, "denied", `Permission denied: ${decision.reason}`);
      return undefined;
    }
    if (decision.behavior === "ask") {
      asks.push({ call, decision });
      return undefined;
    }
    return tool;
  }

  protected parseArguments(call: ToolCallBlock, tool: Tool): unknown {
    let args: unknown;
    try {
      args = call.input.trim() === "" ? {} : JSON.parse(call.input);
    } catch (error) {
      this.writeResult(
        call,
        "error",
        `Error: the arguments are not valid JSON (${(error as Error).message}). Send a JSON object.`,
      );
      return PARSE_FAILED;
    }
    try {
      return tool.parse(args);
    } catch (error) {
      const detail = error instanceof ToolInputError ? error.message : toErrorInfo(error).message;
      this.writeResult(call, "error", `Error: invalid arguments for ${tool.name}: ${detail}`);
      return PARSE_FAILED;
    }
  }

  protected async *runTools(
    calls: Array<{ call: ToolCallBlock; tool: Tool }>,
    parallel: boolean,
  ): AsyncGenerator<AgentEvent> {
    if (!parallel) {
      for (const { call, tool } of calls) {
        if (this.options.signal?.aborted || this.stopReason !== undefined) return;
        yield* this.waitFor(this.runTool(call, tool));
      }
      return;
    }
    yield* this.waitFor(Promise.all(calls.map(({ call, tool }) => this.runTool(call, tool))));
  }

  protected async runTool(call: ToolCallBlock, tool: Tool): Promise<void> {
    const parsed = this.parseArguments(call, tool);
    if (parsed === PARSE_FAILED) return;
    const signal = this.options.signal ?? new AbortController().signal;
    this.emit("TOOL_RESULT_START", { toolCallId: call.id, toolCallName: call.name });
    const ctx = {
      signal,
      sessionId: this.state.sessionId,
      replyId: this.msg.id,
      toolCallId: call.id,
      state: this.state.toolContext,
      permission: this.state.permission,
      requestStop: (reason?: string) => {
        this.stopReason = reason ?? `requested by ${tool.name}`;
      },
    };
    try {
      const value = this.mw.empty
        ? tool.call(parsed, ctx)
        : await untilAborted(this.mw.callTool({ call, tool, input: parsed, ctx }), signal);
      if (isAsyncIterable(value)) {
        const chunks = value[Symbol.asyncIterator]();
        try {
          while (!signal.aborted) {
            const next = await untilAborted(chunks.next(), signal);
            if (next.done) break;
            this.emitOutput(call.id, [chunkToPart(next.value)]);
          }
        } finally {
          if (signal.aborted) void chunks.return?.()?.catch(() => {});
        }
      } else {
        this.emitOutput(call.id, valueToParts(await untilAborted(value, signal)));
      }
      if (signal.aborted) {
        this.emitOutput(call.id, [{ kind: "text", text: `\n[interrupted: ${abortReason(signal)}]` }]);
        this.emit("TOOL_RESULT_END", { toolCallId: call.id, state: "interrupted" });
        return;
      }
      if (tool === this.structuredTool) {
        this.structuredValue = parsed;
        this.structuredDone = true;
      }
      this.emit("TOOL_RESULT_END", { toolCallId: call.id, state: "success" });
    } catch (error) {
      const state = signal.aborted ? "interrupted" : "error";
      if (!signal.aborted && ToolError.isInstance(error) && error.output !== undefined) {
        this.emitOutput(call.id, valueToParts(error.output));
      } else {
        const message = signal.aborted
          ? `[interrupted: ${abortReason(signal)}]`
          : `Error: ${toErrorInfo(error).message}`;
        this.emitOutput(call.id, [{ kind: "text", text: message }]);
      }
      this.emit("TOOL_RESULT_END", { toolCallId: call.id, state });
    }
  }
}

const PARSE_FAILED = Symbol("parse failed");

export function toolSchema(tool: Tool) {
  return { name: tool.name, description: tool.description, parameters: tool.inputSchema };
}

/** A copy of a call as it stands now, for an event payload. */
function snapshotCall(call: ToolCallBlock): ToolCallBlock {
  return { type: "tool_call", id: call.id, name: call.name, input: call.input, state: call.state };
}
