import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import type { EmbeddingModel } from "../../model/embedding.js";
import { embeddingFromSpec } from "../../model/embedding-from-spec.js";
import { citationOf, type IndexProgress, KnowledgeBase, SqliteVectorStore } from "../../rag/index.js";
import { HashEmbedding } from "../../testing/index.js";
import { ConfigError } from "../server/config/service-config.js";
import { CliError } from "./cli-error.js";
import { expandKbInputs } from "./kb-inputs.js";

export const KB_HELP = `Usage: agentscope kb add <name> <files, directories or "globs"...> [--db file] [--embedding spec]
       agentscope kb search <name> <query> [--top-k n] [--mode hybrid|vector|keyword] [--db file]
       agentscope kb list <name> [--db file]
       agentscope kb remove <name> <documentId> [--db file]

Local knowledge bases in an embedded SQLite file (FTS5, and sqlite-vec where installed). "add" reads each file
(text, Markdown, HTML, CSV, JSON, PDF, docx, xlsx, pptx), chunks, embeds and stores it, with a
progress bar; a directory adds every file below it (hidden ones skipped), a quoted glob
("docs/**/*.md") the files it matches. A file that cannot be read is reported and skipped, the
others are added, and the exit code is 1. Documents are named (and cited) relative to what was
given: the file's name, or its path below the directory or the glob's fixed part; adding a
document of the same name again replaces it. "search" prints the best excerpts with their sources.

Options:
  --db <file>          vector database (default .agentscope/vectors.db)
  --embedding <spec>   hash[:dims] (the offline deterministic embedder; default hash:256), or a
                       provider embedding model: openai:text-embedding-3-small,
                       ollama:nomic-embed-text, gemini:gemini-embedding-001, dashscope:text-embedding-v4
                       (keys from the provider's variable, e.g. OPENAI_API_KEY). Search a base
                       with the embedding it was built with.
  --top-k <n>          excerpts to show (default 5)
  --mode <mode>        hybrid (default), vector or keyword
`;

interface Writable {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface KbCommandIo {
  out: Writable;
  /** Where the progress bar goes (default: nowhere). */
  err?: Writable;
}

/** `hash[:dims]` (offline) or a provider embedding spec (`openai:text-embedding-3-small`). */
export function embeddingFrom(spec: string): EmbeddingModel {
  const [kind, dims, ...extra] = spec.split(":");
  if (kind === "hash") {
    const dimensions = dims === undefined ? 256 : Number(dims);
    if (extra.length > 0 || !Number.isInteger(dimensions) || dimensions < 1)
      throw new ConfigError(`--embedding: "${spec}": hash takes a dimension count, e.g. hash:256`);
    return new HashEmbedding({ dimensions });
  }
  try {
    return embeddingFromSpec(spec);
  } catch (error) {
    throw new ConfigError(
      `--embedding: ${(error as Error).message}; use hash[:dims] or provider:model, e.g. openai:text-embedding-3-small`,
    );
  }
}

/** `[#####.....] 12/40 embed notes.md`, redrawn in place. */
export function progressBar(file: string, progress: IndexProgress, width = 20): string {
  const fraction = progress.total === 0 ? 1 : Math.min(1, progress.done / progress.total);
  const filled = Math.round(fraction * width);
  return `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${progress.done}/${progress.total} ${progress.stage.padEnd(5)} ${file}`;
}

/** Runs `agentscope kb ...`. */
export async function kbCommand(args: string[], io: KbCommandIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      db: { type: "string" },
      embedding: { type: "string" },
      "top-k": { type: "string" },
      mode: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [action, name, ...rest] = positionals;
  if (values.help || action === undefined) return void io.out.write(KB_HELP);
  if (!name) throw new ConfigError(`kb ${action}: name the knowledge base\n\n${KB_HELP}`);
  const dbPath = values.db ?? ".agentscope/vectors.db";
  const store = new SqliteVectorStore({ path: dbPath });
  const kb = new KnowledgeBase({ name, embedding: embeddingFrom(values.embedding ?? "hash:256"), store });
  /** Reading or removing needs the base to exist (a missing one is not "no matches"). */
  const requireBase = async () => {
    if (!(await store.hasCollection(kb.collection)))
      throw new ConfigError(
        `kb ${action}: there is no knowledge base "${name}" in ${dbPath} (create it with: agentscope kb add ${name} FILES)`,
      );
  };
  try {
    switch (action) {
      case "add": {
        if (rest.length === 0) throw new ConfigError("kb add: name at least one file, directory or glob");
        const { files, problems } = await expandKbInputs(rest);
        const names = new Map<string, string>();
        let added = 0;
        for (const file of files) {
          const earlier = names.get(file.source);
          if (earlier !== undefined) {
            problems.push({
              arg: file.path,
              message: `has the same name "${file.source}" as ${earlier}; add them from their common directory`,
            });
            continue;
          }
          names.set(file.source, file.path);
          try {
            const result = await kb.insertDocument(
              { source: file.source, bytes: await readFile(file.path) },
              { onProgress: (p) => io.err?.write(progressBar(file.source, p)) },
            );
            io.err?.write("\n");
            io.out.write(`${file.source}: ${result.chunks} chunks\n`);
            added += 1;
          } catch (error) {
            io.err?.write("\n");
            problems.push({ arg: file.path, message: (error as Error).message });
          }
        }
        if (problems.length > 0) {
          const lines = problems.map((problem) => `  ${problem.arg}: ${problem.message}`).join("\n");
          throw new CliError(
            `kb add: ${problems.length} ${problems.length === 1 ? "input was" : "inputs were"} not added:\n${lines}`,
            `${added} ${added === 1 ? "file was" : "files were"} added to "${name}"; fix or leave out the ones above`,
          );
        }
        return;
      }
      case "search": {
        const query = rest.join(" ").trim();
        if (!query) throw new ConfigError("kb search: give a query");
        const topK = values["top-k"] === undefined ? 5 : Number(values["top-k"]);
        if (!Number.isInteger(topK) || topK < 1)
          throw new ConfigError(`--top-k: "${values["top-k"]}" is not a positive integer`);
        const mode = values.mode ?? "hybrid";
        if (mode !== "hybrid" && mode !== "vector" && mode !== "keyword")
          throw new ConfigError(`--mode: "${mode}" is not hybrid, vector or keyword`);
        await requireBase();
        const hits = await kb.search(query, { topK, mode });
        if (hits.length === 0) io.out.write("no matches\n");
        hits.forEach((hit, i) => {
          io.out.write(
            `[${i + 1}] ${citationOf(hit.chunk)}  (score ${hit.score.toFixed(4)})\n${hit.chunk.text}\n\n`,
          );
        });
        return;
      }
      case "list": {
        await requireBase();
        for (const doc of await kb.listDocuments())
          io.out.write(`${doc.documentId}  ${doc.chunkCount} chunks\n`);
        return;
      }
      case "remove": {
        const [documentId] = rest;
        if (!documentId) throw new ConfigError("kb remove: name the document");
        await requireBase();
        if (!(await kb.deleteDocument(documentId)))
          throw new ConfigError(`kb remove: no document ${documentId} in ${name}`);
        io.out.write(`removed ${documentId}\n`);
        return;
      }
      default:
        throw new ConfigError(`kb: unknown action "${action}"\n\n${KB_HELP}`);
    }
  } finally {
    await store.close();
  }
}
