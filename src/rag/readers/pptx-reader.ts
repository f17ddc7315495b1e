import { DocumentReadError } from "../errors.js";
import type { Section } from "../types.js";
import { importOptional } from "./lazy-import.js";
import type { Reader, ReaderInput } from "./reader.js";
import { checkZipArchive, type ZipLimits } from "./zip-limits.js";

const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";

interface OfficeNode {
  type: string;
  text?: string;
  children?: OfficeNode[];
  metadata?: { slideNumber?: number };
}

/** The paragraphs' text under a node, one a line. */
function nodeText(node: OfficeNode): string {
  if (node.type === "paragraph" || (node.text !== undefined && !node.children)) return node.text ?? "";
  return (node.children ?? [])
    .map(nodeText)
    .filter((t) => t.trim() !== "")
    .join("\n");
}

/** PowerPoint .pptx through officeparser: one section per slide with its 1-based number (notes left out). */
export class PptxReader implements Reader {
  readonly name = "pptx";
  readonly extensions = ["pptx"];
  readonly mediaTypes = [PPTX];

  /** `limits`: how far the archive may inflate (checked before the library opens it). */
  constructor(private readonly limits: ZipLimits = {}) {}

  async read({ source, bytes }: ReaderInput): Promise<Section[]> {
    checkZipArchive(source, bytes, this.limits);
    const { parseOffice } = await importOptional(
      () => import("officeparser"),
      "officeparser",
      "the .pptx reader",
    );
    let slides: OfficeNode[];
    try {
      const ast = await parseOffice(Buffer.from(bytes));
      slides = (ast.content as unknown as OfficeNode[]).filter((node) => node.type === "slide");
    } catch (error) {
      throw new DocumentReadError(source, `not a readable .pptx file (${(error as Error).message})`, {
        cause: error,
      });
    }
    return slides
      .map((slide, i) => ({
        source,
        mediaType: PPTX,
        slide: slide.metadata?.slideNumber ?? i + 1,
        text: nodeText(slide).trim(),
      }))
      .filter((section) => section.text !== "");
  }
}
