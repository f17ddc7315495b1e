import { parseArgs } from "node:util";
import type { EmbeddingModel } from "../../model/embedding.js";
import { citationOf, type IndexProgress, KnowledgeBase, SqliteVectorStore } from "../../rag/index.js";
import { HashEmbedding } from "../../testing/index.js";
import { ConfigError } from "../server/config/service-config.js";

export const KB_HELP = `Usage: agentscope kb add <name> <files...> [--db file] [--embedding hash[:dims]]
       agentscope kb search <name> <query> [--top-k n] [--mode hybrid|vector|keyword] [--db file]
       agentscope kb list <name> [--db file]
       agentscope kb remove <name> <documentId> [--db file]

Local knowledge bases in an embedded SQLite file (sqlite-vec + FTS5). "add" reads each file
(text, Markdown, HTML, CSV, JSON, PDF, docx, xlsx, pptx), chunks, embeds and stores it, with a
progress bar; adding a file again replaces it. "search" prints the best excerpts with their sources.

Options:
  --db <file>          vector database (default .agentscope/vectors.db)
  --embedding <spec>   hash[:dims]: the offline deterministic embedder (default hash:256)
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

function embeddingFrom(spec: string): EmbeddingModel {
  const [kind, dims] = spec.split(":");
  if (kind !== "hash") throw new ConfigError(`--embedding: "${spec}" is not supported here; use hash[:dims]`);
  const dimensions = dims === undefined ? 256 : Number(dims);
  if (!Number.isInteger(dimensions) || dimensions < 1)
    throw new ConfigError(`--embedding: "${dims}" is not a dimension count`);
  return new HashEmbedding({ dimensions });
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
  const store = new SqliteVectorStore({ path: values.db ?? ".agentscope/vectors.db" });
  const kb = new KnowledgeBase({ name, embedding: embeddingFrom(values.embedding ?? "hash:256"), store });
  try {
    switch (action) {
      case "add": {
        if (rest.length === 0) throw new ConfigError("kb add: name at least one file");
        for (const file of rest) {
          const result = await kb.insertDocument(file, {
            onProgress: (p) => io.err?.write(progressBar(file, p)),
          });
          io.err?.write("\n");
          io.out.write(`${file}: ${result.chunks} chunks\n`);
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
        for (const doc of await kb.listDocuments())
          io.out.write(`${doc.documentId}  ${doc.chunkCount} chunks\n`);
        return;
      }
      case "remove": {
        const [documentId] = rest;
        if (!documentId) throw new ConfigError("kb remove: name the document");
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
