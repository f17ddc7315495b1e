export { CsvReader, parseCsv, rowsAsText } from "./csv-reader.js";
export { DocxReader } from "./docx-reader.js";
export { decodeEntities, HtmlReader } from "./html-reader.js";
export { ImageReader, type ImageReaderOptions } from "./image-reader.js";
export { flattenJson, JsonReader } from "./json-reader.js";
export { MarkdownReader, withoutFrontMatter } from "./markdown-reader.js";
export { checkPdfDocument } from "./pdf-limits.js";
export { PdfReader } from "./pdf-reader.js";
export { PptxReader } from "./pptx-reader.js";
export {
  defaultReaders,
  documentBytes,
  pickReader,
  type ReadDocumentOptions,
  readDocument,
} from "./read-document.js";
export { decodeText, type Reader, type ReaderInput } from "./reader.js";
export { ReaderPool, type ReaderPoolOptions, sharedReaderPool } from "./reader-pool.js";
export { TextReader } from "./text-reader.js";
export { XlsxReader } from "./xlsx-reader.js";
export { checkZipArchive, DEFAULT_ZIP_LIMITS, RATIO_FLOOR, type ZipLimits } from "./zip-limits.js";
