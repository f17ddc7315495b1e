import { h } from "./dom.js";
import { safeUrl } from "./safe-url.js";

/**
 * An image URL the console shows inline without asking: same-origin, `data:image/...` or `blob:`.
 * An image on any other server is a request the model's output makes on the user's behalf (a prompt
 * injection can put a secret in its URL: zero-click exfiltration), so it never loads by itself.
 */
export function inlineImageUrl(url: string): string | undefined {
  const safe = safeUrl(url, { image: true });
  if (safe === undefined) return undefined;
  const parsed = new URL(safe, location.href);
  if (parsed.protocol === "data:" || parsed.protocol === "blob:") return safe;
  return parsed.origin === location.origin ? safe : undefined;
}

/**
 * A third-party image as a link the user can choose to open (in a new tab, without a referrer):
 * nothing is fetched until they click. The page's CSP (`img-src 'self' data: blob:`) would refuse
 * to load it inline anyway.
 */
export function remoteImageLink(url: string, alt: string): HTMLElement {
  const host = new URL(url, location.href).host;
  return h(
    "a",
    {
      class: "remote-image",
      href: url,
      target: "_blank",
      rel: "noopener noreferrer nofollow",
      title: `Not loaded: an image from ${host}. Click to open it in a new tab.`,
    },
    `Image: ${alt || "untitled"} (from ${host}, click to open)`,
  );
}

/** An `<img>` for an image URL the console may show: inline when it is local, else a link; undefined when unsafe. */
export function imageNode(
  url: string,
  alt: string,
  attributes: Record<string, string> = {},
): HTMLElement | undefined {
  const inline = inlineImageUrl(url);
  if (inline !== undefined) return h("img", { ...attributes, alt, src: inline });
  const safe = safeUrl(url, { image: true });
  return safe === undefined ? undefined : remoteImageLink(safe, alt);
}
