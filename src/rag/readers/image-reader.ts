import type { Section } from "../types.js";
import type { Reader, ReaderInput } from "./reader.js";

const MEDIA_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

export interface ImageReaderOptions {
  /**
   * Optional OCR: the image's text (for example with tesseract.js and @tesseract.js-data/eng).
   * Without it the section's text is empty and only a multimodal embedding can index it.
   */
  ocr?: (bytes: Uint8Array, mediaType: string) => Promise<string>;
}

/** Images: one section keeping the bytes as a data block (for multimodal embedding), text from OCR if given. */
export class ImageReader implements Reader {
  readonly name = "image";
  readonly extensions = Object.keys(MEDIA_TYPES);
  readonly mediaTypes = [...new Set(Object.values(MEDIA_TYPES))];

  constructor(private readonly options: ImageReaderOptions = {}) {}

  async read({ source, bytes, mediaType }: ReaderInput): Promise<Section[]> {
    const extension = source.toLowerCase().split(".").pop() ?? "";
    const type = mediaType ?? MEDIA_TYPES[extension] ?? "application/octet-stream";
    const text = this.options.ocr ? (await this.options.ocr(bytes, type)).trim() : "";
    return [
      {
        source,
        mediaType: type,
        text,
        data: { base64: Buffer.from(bytes).toString("base64"), mediaType: type },
      },
    ];
  }
}
