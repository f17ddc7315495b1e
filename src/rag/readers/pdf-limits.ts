import { constants, inflateSync } from "node:zlib";
import { DocumentLimitError } from "../errors.js";
import { DEFAULT_ZIP_LIMITS, RATIO_FLOOR, type ZipLimits } from "./zip-limits.js";

/** Streams of one PDF inflated at most by the check; a PDF with more is refused. */
const MAX_STREAMS = 100_000;

/**
 * Refuses a PDF that would fill memory before PDF.js opens it, under the zip readers' limits: the
 * file itself may be at most `maxUncompressedBytes`, and its Flate-compressed streams (page
 * contents, fonts, object streams: what text extraction inflates) may inflate, all together, to at
 * most `maxUncompressedBytes` and at most `maxCompressionRatio` times the file's size. Each stream
 * is inflated with what is left of the budget as its output cap, so a bomb stops at the cap.
 * Images are skipped (text extraction never decodes them); a stream that does not inflate is left
 * to PDF.js to judge.
 */
export function checkPdfDocument(source: string, bytes: Uint8Array, limits: ZipLimits = {}): void {
  const { maxUncompressedBytes, maxCompressionRatio } = { ...DEFAULT_ZIP_LIMITS, ...limits };
  if (bytes.byteLength > maxUncompressedBytes)
    throw new DocumentLimitError(
      source,
      `the PDF is ${bytes.byteLength} bytes`,
      "maxUncompressedBytes",
      maxUncompressedBytes,
    );
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  const ratioCap = Math.max(RATIO_FLOOR, bytes.byteLength * maxCompressionRatio);
  const budget = Math.min(maxUncompressedBytes, ratioCap);
  let total = 0;
  let streams = 0;
  let from = 0;
  for (;;) {
    const keyword = text.indexOf("stream", from);
    if (keyword === -1) break;
    from = keyword + 6;
    // `stream` as a keyword (not `endstream`), followed by its end of line.
    if (text.startsWith("end", keyword - 3)) continue;
    const eol = text[from] === "\r" && text[from + 1] === "\n" ? 2 : text[from] === "\n" ? 1 : 0;
    if (eol === 0) continue;
    const start = from + eol;
    const end = text.indexOf("endstream", start);
    if (end === -1) break;
    from = end + 9;
    const dictionary = text.slice(Math.max(0, text.lastIndexOf("obj", keyword)), keyword);
    if (!/\/FlateDecode|\/Fl\b/.test(dictionary) || /\/Subtype\s*\/Image/.test(dictionary)) continue;
    if (++streams > MAX_STREAMS)
      throw new DocumentLimitError(
        source,
        `the PDF has more than ${MAX_STREAMS} compressed streams`,
        "maxArchiveEntries",
        MAX_STREAMS,
      );
    total += inflatedSize(bytes.subarray(start, end), budget - total + 1);
    if (total > budget) {
      const byRatio = ratioCap < maxUncompressedBytes;
      throw new DocumentLimitError(
        source,
        `the PDF's streams inflate from ${bytes.byteLength} to more than ${budget} bytes`,
        byRatio ? "maxCompressionRatio" : "maxUncompressedBytes",
        byRatio ? maxCompressionRatio : maxUncompressedBytes,
      );
    }
  }
}

/** What one stream inflates to, at most `cap` bytes (a stream that does not inflate counts as none). */
function inflatedSize(data: Uint8Array, cap: number): number {
  try {
    // A truncated stream is read as far as it goes, as PDF.js would.
    return inflateSync(data, { maxOutputLength: Math.max(1, cap), finishFlush: constants.Z_SYNC_FLUSH })
      .byteLength;
  } catch (error) {
    return (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" ? cap : 0;
  }
}
