import { DocumentReadError } from "../errors.js";
import type { Section } from "../types.js";
import { decodeText, type Reader, type ReaderInput } from "./reader.js";

/** `path: value` lines for every scalar in a JSON value (`items[0].name: Ada`). */
export function flattenJson(value: unknown, path = ""): string[] {
  if (value === null || typeof value !== "object") return [`${path || "value"}: ${String(value)}`];
  if (Array.isArray(value)) return value.flatMap((item, i) => flattenJson(item, `${path}[${i}]`));
  return Object.entries(value).flatMap(([key, item]) => flattenJson(item, path ? `${path}.${key}` : key));
}

/**
 * JSON and JSON Lines: one section per top-level array item or JSONL line (records stay whole),
 * otherwise one section; values as `path: value` lines.
 */
export class JsonReader implements Reader {
  readonly name = "json";
  readonly extensions = ["json", "jsonl", "ndjson"];
  readonly mediaTypes = ["application/json", "application/x-ndjson", "application/jsonl"];

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    const text = decodeText(bytes);
    const lines = /\.(jsonl|ndjson)$/i.test(source);
    let records: unknown[];
    try {
      if (lines) {
        records = text
          .split(/\r?\n/)
          .filter((line) => line.trim() !== "")
          .map((line) => JSON.parse(line));
      } else {
        const parsed: unknown = JSON.parse(text);
        records = Array.isArray(parsed) ? parsed : [parsed];
      }
    } catch (error) {
      throw new DocumentReadError(source, `invalid JSON (${(error as Error).message})`, { cause: error });
    }
    return records.map((record) => ({
      source,
      mediaType: "application/json",
      text: flattenJson(record).join("\n"),
    }));
  }
}
