import { readFile } from "node:fs/promises";
import { DocumentReadError } from "../errors.js";
import type { Section } from "../types.js";
import { CsvReader } from "./csv-reader.js";
import { DocxReader } from "./docx-reader.js";
import { HtmlReader } from "./html-reader.js";
import { ImageReader } from "./image-reader.js";
import { JsonReader } from "./json-reader.js";
import { MarkdownReader } from "./markdown-reader.js";
import { PdfReader } from "./pdf-reader.js";
import { PptxReader } from "./pptx-reader.js";
import type { Reader, ReaderInput } from "./reader.js";
import { TextReader } from "./text-reader.js";
import { XlsxReader } from "./xlsx-reader.js";
import type { ZipLimits } from "./zip-limits.js";

/** Every built-in reader (each loads its library on first use); `zip`: limits of the zip-based ones and PDF. */
export function defaultReaders(options: { zip?: ZipLimits } = {}): Reader[] {
  return [
    new TextReader(),
    new MarkdownReader(),
    new HtmlReader(),
    new CsvReader(),
    new JsonReader(),
    new PdfReader(options.zip),
    new DocxReader(options.zip),
    new XlsxReader(options.zip),
    new PptxReader(options.zip),
    new ImageReader(),
  ];
}

/** The reader for a document: by media type first (parameters ignored), then by extension. */
export function pickReader(
  source: string,
  mediaType: string | undefined,
  readers: readonly Reader[],
): Reader | undefined {
  const type = mediaType?.split(";")[0]?.trim().toLowerCase();
  if (type) {
    const byType = readers.find((reader) => reader.mediaTypes.includes(type));
    if (byType) return byType;
  }
  const extension = /\.([a-z0-9]+)$/i.exec(source.split(/[?#]/)[0] ?? "")?.[1]?.toLowerCase();
  return extension ? readers.find((reader) => reader.extensions.includes(extension)) : undefined;
}

/** A document as bytes: a path is read from disk (a failure is a DocumentReadError naming it). */
export async function documentBytes(document: string | ReaderInput): Promise<ReaderInput> {
  if (typeof document !== "string") return document;
  try {
    return { source: document, bytes: await readFile(document) };
  } catch (error) {
    throw new DocumentReadError(document, (error as Error).message, { cause: error });
  }
}

export interface ReadDocumentOptions {
  readers?: readonly Reader[];
}

/**
 * Reads a document into sections: a path (read from disk) or bytes with their source name. Any
 * failure is a DocumentReadError naming the document.
 */
export async function readDocument(
  document: string | ReaderInput,
  options: ReadDocumentOptions = {},
): Promise<Section[]> {
  const readers = options.readers ?? defaultReaders();
  const input = await documentBytes(document);
  const reader = pickReader(input.source, input.mediaType, readers);
  if (!reader) {
    throw new DocumentReadError(
      input.source,
      `no reader for this file type${input.mediaType ? ` (${input.mediaType})` : ""}; supported: ${readers.flatMap((r) => r.extensions).join(", ")}`,
    );
  }
  try {
    return await reader.read(input);
  } catch (error) {
    if (error instanceof DocumentReadError) throw error;
    throw new DocumentReadError(
      input.source,
      `the ${reader.name} reader failed: ${(error as Error).message}`,
      { cause: error },
    );
  }
}
