import type { DataSource } from "../../message/index.js";

/** `image`, `audio`, `video`, `application`, ... */
export function mainTypeOf(mediaType: string): string {
  const slash = mediaType.indexOf("/");
  return slash === -1 ? mediaType : mediaType.slice(0, slash);
}

/** The base64 payload of a source: its data, or the payload of a `data:` URL; undefined for remote URLs. */
export function base64Of(source: DataSource): string | undefined {
  if (source.type === "base64") return source.data;
  if (!source.url.startsWith("data:")) return undefined;
  const comma = source.url.indexOf(",");
  return comma === -1 ? undefined : source.url.slice(comma + 1);
}

/** Whether a media type matches one of the patterns (`image/*`, `application/pdf`, ...). */
export function acceptsMedia(patterns: readonly string[], mediaType: string): boolean {
  for (const pattern of patterns) {
    if (pattern === mediaType) return true;
    if (pattern.endsWith("/*") && mediaType.startsWith(pattern.slice(0, -1))) return true;
  }
  return false;
}
