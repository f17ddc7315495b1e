import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Msg } from "../../src/message/index.js";
import { formatAnthropic } from "../../src/model/anthropic/anthropic-format.js";
import { formatDashScope } from "../../src/model/dashscope/dashscope-format.js";
import { formatGemini } from "../../src/model/gemini/gemini-format.js";
import { normalizeMessages } from "../../src/model/normalize.js";
import { formatOllama } from "../../src/model/ollama/ollama-format.js";
import { formatOpenAIChat } from "../../src/model/openai/chat-format.js";
import { formatOpenAIResponses } from "../../src/model/openai/responses-format.js";
import type { ToolSchema } from "../../src/model/types.js";
import { STANDARD_TOOLS, standardConversation } from "./fixtures/standard-conversation.js";

/**
 * One standard conversation formatted by every formatter, compared with the expected request body in
 * test/model/fixtures/<fixture>. `UPDATE_FIXTURES=1` rewrites the files (review the diff).
 */
interface FormatterCase {
  fixture: string;
  /** Provider id stamped on the conversation's thinking (so it is the target's own). */
  provider: string;
  /** Whether the model keeps its own built-in tool runs when it normalises (as its ProviderModel does). */
  keepProviderRuns?: boolean;
  format(messages: Msg[], tools: ToolSchema[]): unknown;
}

const CASES: FormatterCase[] = [
  {
    fixture: "openai-chat.json",
    provider: "openai",
    format: (messages, tools) =>
      formatOpenAIChat(messages, { model: "gpt-4o", tools, toolChoice: "auto", maxTokens: 1024 }),
  },
  {
    fixture: "openai-chat-deepseek.json",
    provider: "deepseek",
    format: (messages, tools) =>
      formatOpenAIChat(messages, {
        model: "deepseek-reasoner",
        provider: "deepseek",
        reasoningRoundTrip: true,
        maxTokensField: "max_tokens",
        tools,
        toolChoice: { name: "get_weather" },
        maxTokens: 1024,
      }),
  },
  {
    fixture: "openai-responses.json",
    keepProviderRuns: true,
    provider: "openai",
    format: (messages, tools) =>
      formatOpenAIResponses(messages, {
        model: "o3",
        tools,
        toolChoice: "required",
        maxTokens: 1024,
        reasoningEffort: "low",
        store: false,
      }),
  },
  {
    fixture: "anthropic.json",
    keepProviderRuns: true,
    provider: "anthropic",
    format: (messages, tools) =>
      formatAnthropic(messages, {
        model: "claude-sonnet-4-5",
        maxTokens: 1024,
        tools,
        toolChoice: "auto",
        thinkingBudget: 1024,
      }),
  },
  {
    fixture: "gemini.json",
    keepProviderRuns: true,
    provider: "gemini",
    format: (messages, tools) =>
      formatGemini(messages, { tools, toolChoice: "required", maxTokens: 1024, thinkingBudget: 512 }),
  },
  {
    fixture: "ollama.json",
    provider: "ollama",
    format: (messages, tools) =>
      formatOllama(messages, { model: "qwen3", tools, think: true, maxTokens: 1024 }),
  },
  {
    fixture: "dashscope.json",
    provider: "dashscope",
    format: (messages, tools) =>
      formatDashScope(messages, {
        model: "qwen-vl-max",
        tools,
        toolChoice: { name: "get_weather" },
        enableThinking: true,
        maxTokens: 1024,
      }),
  },
];

describe.each(CASES)("formatter fixture $fixture", ({ fixture, provider, keepProviderRuns, format }) => {
  it("formats the standard conversation, normalised as the model does, as the recorded body", () => {
    const history = normalizeMessages(standardConversation(provider), { provider, keepProviderRuns });
    const body = format(history, STANDARD_TOOLS);
    const path = new URL(`./fixtures/${fixture}`, import.meta.url);
    if (process.env.UPDATE_FIXTURES === "1") writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`);
    if (!existsSync(path))
      throw new Error(
        `no fixture ${fixture}: run UPDATE_FIXTURES=1 npx vitest run ${"test/model/formatter-fixtures.test.ts"} and review it`,
      );
    expect(body).toEqual(JSON.parse(readFileSync(path, "utf8")));
  });
});
