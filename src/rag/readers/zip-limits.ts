import { inflateRawSync } from "node:zlib";
import { DocumentLimitError, DocumentReadError } from "../errors.js";

/** How far a zip-based document (.docx, .xlsx, .pptx) may inflate before a reader opens it. */
export interface ZipLimits {
  /** All entries together, uncompressed. Default 128 MiB. */
  maxUncompressedBytes?: number;
  /** Uncompressed size over compressed size, per entry and for the whole archive. Default 100. */
  maxCompressionRatio?: number;
  /** Entries in the archive. Default 10,000. */
  maxArchiveEntries?: number;
}

export const DEFAULT_ZIP_LIMITS: Required<ZipLimits> = {
  maxUncompressedBytes: 128 * 1024 * 1024,
  maxCompressionRatio: 100,
  maxArchiveEntries: 10_000,
};

/** Below this many uncompressed bytes the ratio is not checked (a small run of zeros compresses 1000:1). */
export const RATIO_FLOOR = 1024 * 1024;

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const DESCRIPTOR = 0x08074b50;

interface Entry {
  name: string;
  flags: number;
  method: number;
  compressed: number;
  uncompressed: number;
  offset: number;
}

/** The end-of-central-directory record's position (it may be followed by a comment of up to 64 KiB). */
function findEndRecord(view: DataView): number {
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === EOCD) return at;
  }
  return -1;
}

function readCentralDirectory(source: string, view: DataView, bytes: Uint8Array) {
  const fail = (problem: string) => new DocumentReadError(source, `not a readable zip archive (${problem})`);
  const end = findEndRecord(view);
  if (end === -1) throw fail("no end of central directory");
  const count = view.getUint16(end + 10, true);
  const size = view.getUint32(end + 12, true);
  const start = view.getUint32(end + 16, true);
  if (count === 0xffff || size === 0xffffffff || start === 0xffffffff)
    throw fail("ZIP64 archives are not read");
  if (view.getUint16(end + 4, true) !== 0 || view.getUint16(end + 6, true) !== 0)
    throw fail("multi-part archive");
  if (start + size !== end) throw fail("the central directory is not where the archive says");
  const entries: Entry[] = [];
  let at = start;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) throw fail("damaged central directory");
    const nameLength = view.getUint16(at + 28, true);
    const entry: Entry = {
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      compressed: view.getUint32(at + 20, true),
      uncompressed: view.getUint32(at + 24, true),
      offset: view.getUint32(at + 42, true),
      name: new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength)),
    };
    if (entry.compressed === 0xffffffff || entry.uncompressed === 0xffffffff || entry.offset === 0xffffffff)
      throw fail("ZIP64 archives are not read");
    entries.push(entry);
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  if (at !== end) throw fail("damaged central directory");
  return { entries, start };
}

/**
 * Refuses a zip archive that would inflate past the limits, before any library opens it:
 * 1. the central directory's declared sizes are checked against the limits (nothing inflated yet);
 * 2. the entries must tile the archive, each local header right after the previous entry's data and
 *    the last one ending at the central directory, so no reader (central-directory or streaming)
 *    can find data the check did not see;
 * 3. each entry is inflated with its declared size as the output cap, so an entry that lies about
 *    its size stops at the lie instead of filling memory.
 * Encrypted entries and methods other than stored and deflate are refused.
 */
export function checkZipArchive(source: string, bytes: Uint8Array, limits: ZipLimits = {}): void {
  const { maxUncompressedBytes, maxCompressionRatio, maxArchiveEntries } = {
    ...DEFAULT_ZIP_LIMITS,
    ...limits,
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { entries, start } = readCentralDirectory(source, view, bytes);
  if (entries.length > maxArchiveEntries)
    throw new DocumentLimitError(
      source,
      `the archive has ${entries.length} entries`,
      "maxArchiveEntries",
      maxArchiveEntries,
    );
  let total = 0;
  for (const entry of entries) {
    total += entry.uncompressed;
    if (entry.flags & 1) throw new DocumentReadError(source, `${entry.name} is encrypted`);
    if (entry.method !== 0 && entry.method !== 8)
      throw new DocumentReadError(
        source,
        `${entry.name} uses compression method ${entry.method} (only stored and deflate are read)`,
      );
    if (
      entry.uncompressed > RATIO_FLOOR &&
      entry.uncompressed / Math.max(entry.compressed, 1) > maxCompressionRatio
    )
      throw new DocumentLimitError(
        source,
        `${entry.name} inflates from ${entry.compressed} to ${entry.uncompressed} bytes`,
        "maxCompressionRatio",
        maxCompressionRatio,
      );
  }
  if (total > maxUncompressedBytes)
    throw new DocumentLimitError(
      source,
      `the archive inflates to ${total} bytes`,
      "maxUncompressedBytes",
      maxUncompressedBytes,
    );
  if (total > RATIO_FLOOR && total / bytes.byteLength > maxCompressionRatio)
    throw new DocumentLimitError(
      source,
      `the archive inflates from ${bytes.byteLength} to ${total} bytes`,
      "maxCompressionRatio",
      maxCompressionRatio,
    );
  let expected = 0;
  for (const entry of [...entries].sort((a, b) => a.offset - b.offset)) {
    if (
      entry.offset !== expected ||
      entry.offset + 30 > start ||
      view.getUint32(entry.offset, true) !== LOCAL
    )
      throw new DocumentReadError(
        source,
        `not a readable zip archive (data outside its entries near ${entry.name})`,
      );
    const data =
      entry.offset + 30 + view.getUint16(entry.offset + 26, true) + view.getUint16(entry.offset + 28, true);
    let next = data + entry.compressed;
    if (next > start)
      throw new DocumentReadError(source, `not a readable zip archive (${entry.name} is cut short)`);
    if (entry.flags & 8) next += next + 4 <= start && view.getUint32(next, true) === DESCRIPTOR ? 16 : 12;
    inflated(source, entry, bytes.subarray(data, data + entry.compressed));
    expected = next;
  }
  if (expected !== start)
    throw new DocumentReadError(source, "not a readable zip archive (data outside its entries)");
}

/** Inflates one entry with its declared size as the cap; a size that is a lie is an error. */
function inflated(source: string, entry: Entry, data: Uint8Array): void {
  let size = data.byteLength;
  if (entry.method === 8) {
    try {
      size = inflateRawSync(data, { maxOutputLength: Math.max(1, entry.uncompressed) }).byteLength;
    } catch (error) {
      const tooLarge = (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE";
      throw new DocumentReadError(
        source,
        tooLarge
          ? `${entry.name} inflates past the ${entry.uncompressed} bytes it declares`
          : `not a readable zip archive (${entry.name}: ${(error as Error).message})`,
        { cause: error },
      );
    }
  }
  if (size !== entry.uncompressed)
    throw new DocumentReadError(
      source,
      `${entry.name} holds ${size} bytes, not the ${entry.uncompressed} it declares`,
    );
}
