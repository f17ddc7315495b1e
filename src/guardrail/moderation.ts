import type { Guardrail, GuardrailCheck, GuardrailVerdict } from "../agent/index.js";
import type { ChatModel } from "../model/core.js";
import { modelAnswer } from "./model-answer.js";

/** An OpenAI-style moderation endpoint (`POST {baseURL}/moderations`). */
export interface ModerationEndpoint {
  /** e.g. `https://api.openai.com/v1`. */
  baseURL: string;
  apiKey?: string;
  /** Default `omni-moderation-latest`. */
  model?: string;
  fetch?: typeof fetch;
}

export interface ModerationGuardrailOptions {
  /** A chat model asked with a judge prompt (answer `FLAGGED: <categories>` or `SAFE`). */
  model?: ChatModel;
  /** Or a moderation endpoint; exactly one of the two. */
  endpoint?: ModerationEndpoint;
  /** Trip only on these categories (default: anything flagged). */
  categories?: readonly string[];
  /** The judge prompt for `model`. */
  prompt?: string;
  /** Default `moderation`. */
  name?: string;
}

const MODERATION_PROMPT =
  "You moderate text for an AI product. If the text contains harassment, hate, violence, sexual content involving minors, self-harm instructions or other content a safe product must not pass, answer `FLAGGED: <categories, comma separated>`; otherwise answer `SAFE`. Answer nothing else.";

/** What one check found: flagged or not, and the categories flagged. */
type Moderated = { flagged: boolean; categories: string[] };

/**
 * A moderation guardrail on a model: trips with kind `moderation` when the model flags the text (any
 * ChatModel with a judge prompt, or an OpenAI-style /moderations endpoint). An answer it cannot read
 * or an endpoint error throws, which trips with `guardrail_error`: unchecked text is never passed.
 */
export function moderationGuardrail(options: ModerationGuardrailOptions): Guardrail {
  const { model, endpoint } = options;
  if ((model === undefined) === (endpoint === undefined)) {
    throw new TypeError("moderationGuardrail: give exactly one of `model` or `endpoint`");
  }
  const only = options.categories && new Set(options.categories.map((c) => c.toLowerCase()));
  const moderate = ({ text, signal, reportModelCall }: GuardrailCheck): Promise<Moderated> =>
    model
      ? judgedByModel(model, options.prompt ?? MODERATION_PROMPT, text, signal, reportModelCall)
      : moderatedByEndpoint(endpoint!, text, signal);
  return {
    name: options.name ?? "moderation",
    async check(check: GuardrailCheck): Promise<GuardrailVerdict> {
      if (check.text.trim() === "") return { action: "pass" };
      const { flagged, categories } = await moderate(check);
      const hits = only ? categories.filter((c) => only.has(c.toLowerCase())) : categories;
      if (!flagged || (only && hits.length === 0)) return { action: "pass" };
      return {
        action: "trip",
        kind: "moderation",
        reason: `flagged by moderation${hits.length > 0 ? `: ${hits.join(", ")}` : ""}`,
      };
    },
  };
}

async function judgedByModel(
  model: ChatModel,
  prompt: string,
  text: string,
  signal: AbortSignal,
  report: GuardrailCheck["reportModelCall"],
): Promise<Moderated> {
  const answer = (await modelAnswer(model, prompt, `<text>\n${text}\n</text>`, signal, report)).trim();
  const flagged = /^FLAGGED\b:?\s*(.*)$/is.exec(answer);
  if (flagged) {
    const categories = (flagged[1] ?? "")
      .split(",")
      .map((c) => c.trim())
      .filter((c) => c !== "");
    return { flagged: true, categories };
  }
  if (/^SAFE\b/i.test(answer)) return { flagged: false, categories: [] };
  throw new Error(
    `the moderation model answered neither FLAGGED nor SAFE: ${JSON.stringify(answer.slice(0, 80))}`,
  );
}

async function moderatedByEndpoint(
  endpoint: ModerationEndpoint,
  text: string,
  signal: AbortSignal,
): Promise<Moderated> {
  const doFetch = endpoint.fetch ?? fetch;
  const response = await doFetch(`${endpoint.baseURL.replace(/\/+$/, "")}/moderations`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(endpoint.apiKey ? { authorization: `Bearer ${endpoint.apiKey}` } : {}),
    },
    body: JSON.stringify({ model: endpoint.model ?? "omni-moderation-latest", input: text }),
    signal,
  });
  if (!response.ok) throw new Error(`the moderation endpoint answered ${response.status}`);
  const body = (await response.json()) as {
    results?: Array<{ flagged?: boolean; categories?: Record<string, boolean> }>;
  };
  if (!Array.isArray(body.results)) throw new Error("the moderation endpoint's answer has no `results`");
  const categories = new Set<string>();
  let flagged = false;
  for (const result of body.results) {
    if (result.flagged) flagged = true;
    for (const [name, on] of Object.entries(result.categories ?? {})) if (on) categories.add(name);
  }
  return { flagged, categories: [...categories] };
}
