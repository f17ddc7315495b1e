import type { DataBlock } from "../message/index.js";

/** A data block as a `data:` URL, or its URL as is. */
export function dataUrl(block: DataBlock): string {
  const source = block.source;
  return source.type === "base64" ? `data:${source.mediaType};base64,${source.data}` : source.url;
}

/** The media type of a data block (from a `data:` URL or the file extension when the source says none). */
export function mediaTypeOf(block: DataBlock): string {
  const source = block.source;
  if (source.type === "base64") return source.mediaType;
  if (source.mediaType) return source.mediaType;
  const match = /^data:([^;,]+)/.exec(source.url);
  if (match?.[1]) return match[1];
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(source.url)?.[1]?.toLowerCase() ?? "";
  return EXTENSION_TYPES[ext] ?? "application/octet-stream";
}

const EXTENSION_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  wav: "audio/wav",
  mp3: "audio/mpeg",
  mp4: "video/mp4",
  txt: "text/plain",
  md: "text/markdown",
};

/** The kind of media a block holds, which decides how each provider takes it. */
export type MediaKind = "image" | "audio" | "pdf" | "text" | "video" | "other";

export function mediaKind(mediaType: string): MediaKind {
  if (mediaType.startsWith("image/")) return "image";
  if (mediaType.startsWith("audio/")) return "audio";
  if (mediaType === "application/pdf") return "pdf";
  if (mediaType.startsWith("text/") || mediaType === "application/json") return "text";
  if (mediaType.startsWith("video/")) return "video";
  return "other";
}

/** Decodes a base64 text attachment (text/*, JSON) to a string. */
export function decodeText(block: DataBlock): string | undefined {
  return block.source.type === "base64"
    ? Buffer.from(block.source.data, "base64").toString("utf8")
    : undefined;
}

/** What a provider that cannot take an attachment receives instead. */
export function attachmentPlaceholder(block: DataBlock): string {
  const where = block.source.type === "url" ? ` at ${block.source.url}` : "";
  return `[attachment${block.name ? ` ${block.name}` : ""} (${mediaTypeOf(block)})${where} not supported by this model]`;
}
