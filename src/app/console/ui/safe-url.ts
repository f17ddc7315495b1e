/**
 * The URL schemes the console ever renders: http(s) and blob: everywhere, data: for images only.
 * Anything else (javascript:, vbscript:, file:, data:text/html, ...) is undefined = not shown.
 */
export function safeUrl(url: string, options: { image?: boolean } = {}): string | undefined {
  let protocol: string;
  try {
    protocol = new URL(url, location.href).protocol;
  } catch {
    return undefined;
  }
  if (protocol === "http:" || protocol === "https:" || protocol === "blob:") return url;
  if (options.image && protocol === "data:" && /^data:image\/(png|jpe?g|gif|webp|avif|bmp);/i.test(url))
    return url;
  return undefined;
}
