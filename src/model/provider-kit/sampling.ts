import { AgentScopeError } from "../../message/index.js";
import type { ChatOptions, SamplingOptions } from "../types.js";

export type SamplingField = keyof SamplingOptions;

const FIELDS: readonly SamplingField[] = [
  "topP",
  "topK",
  "stopSequences",
  "seed",
  "presencePenalty",
  "frequencyPenalty",
];

/** A provider's wire name for each sampling option it supports; options left out are rejected. */
export type SamplingWireNames = Partial<Record<SamplingField, string>>;

/** The call's sampling options over the model's defaults (a call's value wins). */
export function mergeSampling(model: SamplingOptions | undefined, call: ChatOptions): SamplingOptions {
  const merged: SamplingOptions = { ...model };
  for (const field of FIELDS) {
    if (call[field] !== undefined) (merged as Record<string, unknown>)[field] = call[field];
  }
  return merged;
}

function invalid(provider: string, message: string): AgentScopeError {
  return new AgentScopeError({
    type: "invalid_request",
    message: `${provider}: ${message}`,
    source: provider,
  });
}

function checkValue(provider: string, field: SamplingField, value: unknown): void {
  const number = typeof value === "number" && Number.isFinite(value);
  const ok =
    field === "stopSequences"
      ? Array.isArray(value) && value.every((item) => typeof item === "string")
      : field === "topP"
        ? number && (value as number) >= 0 && (value as number) <= 1
        : field === "topK" || field === "seed"
          ? Number.isInteger(value) && (field === "seed" || (value as number) >= 1)
          : number && (value as number) >= -2 && (value as number) <= 2;
  if (!ok) {
    const expected =
      field === "stopSequences"
        ? "an array of strings"
        : field === "topP"
          ? "a number from 0 to 1"
          : field === "topK"
            ? "a positive integer"
            : field === "seed"
              ? "an integer"
              : "a number from -2 to 2";
    throw invalid(provider, `sampling option \`${field}\` must be ${expected}, got ${JSON.stringify(value)}`);
  }
}

/**
 * Writes the sampling options into `target` (the part of the body that holds them) under the
 * provider's names. An option the provider does not have is an error that names it, never dropped.
 */
export function applySampling(
  provider: string,
  sampling: SamplingOptions,
  wireNames: SamplingWireNames,
  target: Record<string, unknown>,
): void {
  const unsupported = FIELDS.filter(
    (field) => sampling[field] !== undefined && wireNames[field] === undefined,
  );
  if (unsupported.length > 0) {
    const names = unsupported.map((field) => `\`${field}\``).join(", ");
    throw invalid(
      provider,
      `the API has no ${names} sampling option: remove ${unsupported.length > 1 ? "them" : "it"}, or send the provider's own field in \`extraBody\``,
    );
  }
  for (const field of FIELDS) {
    const value = sampling[field];
    if (value === undefined) continue;
    checkValue(provider, field, value);
    target[wireNames[field] as string] = value;
  }
}

/** The sub-object of `body` at `key`, created when missing (Gemini `generationConfig`, Ollama `options`). */
export function section(body: object, key: string): Record<string, unknown> {
  const record = body as Record<string, unknown>;
  const existing = record[key];
  if (existing !== null && typeof existing === "object") return existing as Record<string, unknown>;
  const created: Record<string, unknown> = {};
  record[key] = created;
  return created;
}
