import type { Section } from "../types.js";
import { decodeText, type Reader, type ReaderInput } from "./reader.js";

/** Plain text: one section holding the whole file. */
export class TextReader implements Reader {
  readonly name = "text";
  readonly extensions = ["txt", "text", "log"];
  readonly mediaTypes = ["text/plain"];

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    return [{ source, mediaType: "text/plain", text: decodeText(bytes) }];
  }
}
