/**
 * The page's copy of `applyEvent` (src/event/apply-event.ts), as a browser ES module: it folds a
 * reply's events into its assistant Msg in place. test/app/console/fold.test.ts checks that it
 * rebuilds the same Msg as the real fold. (Page scripts are strings: no backticks inside.)
 */
export const FOLD_JS = `
export function startReply(event) {
  return { id: event.replyId, name: event.name, role: "assistant", content: [], metadata: {}, createdAt: event.createdAt };
}

function find(msg, type, id) {
  for (let i = msg.content.length - 1; i >= 0; i--) {
    const block = msg.content[i];
    if (block.id === id && block.type === type) return block;
  }
  return undefined;
}

function setCallStates(msg, ids, state) {
  for (const id of ids) {
    const call = find(msg, "tool_call", id);
    if (call) call.state = state;
  }
}

export function appendBase64(head, tail) {
  if (head === "") return tail;
  if (tail === "") return head;
  if (!head.endsWith("=")) return head + tail;
  return btoa(atob(head) + atob(tail));
}

function dataBlock(id, mediaType, url, data, name) {
  const block = url !== undefined
    ? { type: "data", id: id, source: { type: "url", url: url, mediaType: mediaType } }
    : { type: "data", id: id, source: { type: "base64", mediaType: mediaType, data: data } };
  if (name !== undefined) block.name = name;
  return block;
}

function appendResultText(result, delta, eventId) {
  if (typeof result.output === "string") {
    result.output += delta;
    return;
  }
  const last = result.output[result.output.length - 1];
  if (last && last.type === "text") last.text += delta;
  else result.output.push({ type: "text", id: eventId, text: delta });
}

function appendResultData(result, event) {
  if (typeof result.output === "string") {
    result.output = result.output === "" ? [] : [{ type: "text", id: result.id + ":text", text: result.output }];
  }
  const part = result.output.find((p) => p.type === "data" && p.id === event.blockId);
  if (!part) result.output.push(dataBlock(event.blockId, event.mediaType, event.url, event.data || "", event.name));
  else if (part.source.type === "base64" && event.data !== undefined) part.source.data = appendBase64(part.source.data, event.data);
}

/** Folds one event of reply msg.id into msg (in place); events of other replies are ignored. */
export function applyEvent(msg, event) {
  if (msg.id !== event.replyId) return msg;
  const content = msg.content;
  switch (event.type) {
    case "TEXT_BLOCK_START":
      content.push({ type: "text", id: event.blockId, text: "" });
      break;
    case "TEXT_BLOCK_DELTA": {
      const block = find(msg, "text", event.blockId);
      if (block) block.text += event.delta;
      break;
    }
    case "THINKING_BLOCK_START":
      content.push({ type: "thinking", id: event.blockId, thinking: "" });
      break;
    case "THINKING_BLOCK_DELTA": {
      const block = find(msg, "thinking", event.blockId);
      if (block) block.thinking += event.delta;
      break;
    }
    case "THINKING_BLOCK_END": {
      const block = find(msg, "thinking", event.blockId);
      if (block) {
        for (const key of ["signature", "redactedData", "itemId", "provider"]) {
          if (event[key] !== undefined) block[key] = event[key];
        }
      }
      break;
    }
    case "DATA_BLOCK_START":
      content.push(dataBlock(event.blockId, event.mediaType, event.url, "", event.name));
      break;
    case "DATA_BLOCK_DELTA": {
      const block = find(msg, "data", event.blockId);
      if (block && block.source.type === "base64") block.source.data = appendBase64(block.source.data, event.data);
      break;
    }
    case "HINT_BLOCK":
      content.push({ type: "hint", id: event.blockId, text: event.text });
      break;
    case "TOOL_CALL_START":
      content.push({ type: "tool_call", id: event.toolCallId, name: event.toolCallName, input: "", state: "pending" });
      break;
    case "TOOL_CALL_DELTA": {
      const call = find(msg, "tool_call", event.toolCallId);
      if (call) call.input += event.delta;
      break;
    }
    case "REQUIRE_USER_CONFIRM":
      setCallStates(msg, event.toolCalls.map((c) => c.id), "asking");
      break;
    case "REQUIRE_EXTERNAL_EXECUTION":
      setCallStates(msg, event.toolCalls.map((c) => c.id), "submitted");
      break;
    case "USER_CONFIRM_RESULT":
      for (const answer of event.confirmResults) {
        if (!answer.confirmed) continue;
        const call = find(msg, "tool_call", answer.toolCall.id);
        if (call) {
          call.state = "allowed";
          call.input = answer.toolCall.input;
        }
      }
      break;
    case "EXTERNAL_EXECUTION_RESULT":
      setCallStates(msg, event.toolResults.map((r) => r.id), "allowed");
      break;
    case "TOOL_RESULT_START": {
      const call = find(msg, "tool_call", event.toolCallId);
      if (call && call.state === "pending") call.state = "allowed";
      content.push({ type: "tool_result", id: event.toolCallId, name: event.toolCallName, output: "", state: "running" });
      break;
    }
    case "TOOL_RESULT_TEXT_DELTA": {
      const result = find(msg, "tool_result", event.toolCallId);
      if (result) appendResultText(result, event.delta, event.id);
      break;
    }
    case "TOOL_RESULT_DATA_DELTA": {
      const result = find(msg, "tool_result", event.toolCallId);
      if (result) appendResultData(result, event);
      break;
    }
    case "TOOL_RESULT_END": {
      const result = find(msg, "tool_result", event.toolCallId);
      if (result) result.state = event.state;
      setCallStates(msg, [event.toolCallId], "finished");
      break;
    }
    case "MODEL_CALL_END": {
      const usage = msg.usage || { inputTokens: 0, outputTokens: 0 };
      const next = Object.assign({}, usage, {
        inputTokens: usage.inputTokens + event.inputTokens,
        outputTokens: usage.outputTokens + event.outputTokens,
      });
      if (event.cacheReadTokens !== undefined) next.cacheReadTokens = (usage.cacheReadTokens || 0) + event.cacheReadTokens;
      if (event.cacheWriteTokens !== undefined) next.cacheWriteTokens = (usage.cacheWriteTokens || 0) + event.cacheWriteTokens;
      msg.usage = next;
      break;
    }
    case "REPLY_END":
      msg.finishedReason = event.finishedReason;
      if (event.error !== undefined) msg.error = event.error;
      if (event.structuredOutput !== undefined) msg.structuredOutput = event.structuredOutput;
      break;
  }
  return msg;
}
`;
