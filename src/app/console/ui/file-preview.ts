import { h } from "./dom.js";

/** Characters of a text file shown in its preview. */
const TEXT_SHOWN = 20_000;
const IMAGE = /\.(png|jpe?g|gif|webp|avif|bmp)$/i;

/** Whether bytes read as text (no NUL in the first 8 KB). */
const looksLikeText = (bytes: Uint8Array) => !bytes.subarray(0, 8192).includes(0);

/**
 * The preview of a workspace file (a blob fetched with the Authorization header): an image drawn
 * from a blob: URL (revoked when it is replaced), text in a scrolling block (the first 20,000
 * characters), anything else a note.
 */
export async function filePreview(blob: Blob, name: string): Promise<HTMLElement> {
  if (IMAGE.test(name)) {
    const url = URL.createObjectURL(blob);
    const img = h("img", { class: "file-preview-image", src: url, alt: `Preview of ${name}` });
    img.addEventListener("load", () => setTimeout(() => URL.revokeObjectURL(url), 60_000), { once: true });
    return h("div", { class: "file-preview", "data-preview": "image" }, img);
  }
  const bytes = new Uint8Array(await blob.arrayBuffer());
  if (!looksLikeText(bytes))
    return h(
      "p",
      { class: "note file-preview", "data-preview": "none" },
      "No preview: not text or an image.",
    );
  const text = new TextDecoder().decode(bytes);
  return h(
    "div",
    { class: "file-preview", "data-preview": "text" },
    h(
      "pre",
      { class: "studio-json", tabindex: "0", "aria-label": `Preview of ${name}` },
      text.slice(0, TEXT_SHOWN),
    ),
    text.length > TEXT_SHOWN &&
      h(
        "p",
        { class: "note" },
        `The first ${TEXT_SHOWN.toLocaleString("en")} characters of ${text.length.toLocaleString("en")}.`,
      ),
  );
}
