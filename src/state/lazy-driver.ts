import { MissingDriverError } from "./store-errors.js";

/** An optional package agentscope loads on first use: what needs it, and the command that installs it. */
export interface OptionalPackage {
  /** The features that load it, as a user meets them. */
  feature: string;
  /**
   * The `npm install` arguments: the line the peer range allows and CI tests, where the latest
   * release may be outside it (the database drivers' latest majors are the supported ones, and
   * MissingDriverError names them bare).
   */
  install: string;
}

/**
 * Every optional package, by name: declared as optional peer dependencies in package.json, listed in
 * docs/getting-started.md ("Optional packages"); test/build/optional-packages.test.ts keeps the three
 * in step with the code's lazy imports.
 */
export const OPTIONAL_PACKAGES: Readonly<Record<string, OptionalPackage>> = {
  "better-sqlite3": {
    feature:
      "the embedded SQLite store (SqliteStateStore, the service's sqlite: store) and SqliteVectorStore",
    install: "better-sqlite3",
  },
  "sqlite-vec": { feature: "SqliteVectorStore (vector search in SQLite)", install: "sqlite-vec@0.1" },
  pg: {
    feature: "PostgreSQL: PostgresStateStore, the service's postgres:// store, PgVectorStore",
    install: "pg",
  },
  ioredis: { feature: "Redis: RedisStateStore, the service's redis:// store", install: "ioredis" },
  mysql2: { feature: "MySQL: MySqlStateStore, MySqlSpendCounter (budgets on mysql://)", install: "mysql2" },
  "@lancedb/lancedb": { feature: "LanceDBStore", install: "@lancedb/lancedb@0.31 apache-arrow@18.1" },
  "apache-arrow": {
    feature: "LanceDBStore (its tables)",
    install: "@lancedb/lancedb@0.31 apache-arrow@18.1",
  },
  unpdf: { feature: "PdfReader: .pdf files in knowledge bases and `agentscope kb add`", install: "unpdf@1" },
  mammoth: { feature: "DocxReader: .docx files", install: "mammoth@1" },
  exceljs: { feature: "XlsxReader: .xlsx files", install: "exceljs@4" },
  officeparser: { feature: "PptxReader: .pptx files", install: "officeparser@7" },
  "js-tiktoken": { feature: "ExactTokenChunker with an encoding name", install: "js-tiktoken@1" },
  yaml: { feature: "eval datasets written in YAML", install: "yaml@2" },
  react: { feature: "agentscope/react (useAgentSession)", install: "react" },
};

/** The command that installs an optional package (and its companions), e.g. `npm install pg`. */
export function installCommand(packageName: string): string {
  return `npm install ${OPTIONAL_PACKAGES[packageName]?.install ?? packageName}`;
}

const NOT_FOUND = new Set(["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND"]);

/** Whether `error` says that `packageName` itself (not something inside it) could not be found. */
export function isPackageNotFound(error: unknown, packageName: string): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code !== undefined && NOT_FOUND.has(code) && String(error).includes(packageName);
}

/**
 * Whether `error` is an optional package that is not installed (MissingDriverError, or a library
 * error whose cause is one): a setup step with its install command in the message, not a bug.
 */
export function isMissingOptionalPackage(error: unknown): boolean {
  if (error instanceof MissingDriverError) return true;
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  return Object.keys(OPTIONAL_PACKAGES).some((name) => isPackageNotFound(cause, name));
}

/**
 * Imports an optional database driver on first use, so importing agentscope never loads it. A driver
 * that is not installed becomes a MissingDriverError saying which package to install.
 */
export async function importDriver<T>(
  load: () => Promise<T>,
  packageName: string,
  store: string,
): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isPackageNotFound(error, packageName))
      throw new MissingDriverError(store, packageName, { cause: error });
    throw error;
  }
}
