import type {
  IndexJob,
  KnowledgeBaseInfo,
  KnowledgeDocument,
  KnowledgeHit,
  KnowledgeSearchOptions,
} from "../protocol/knowledge-types.js";
import type { RouteResponse } from "../protocol/route-table.js";

export type {
  IndexJob,
  IndexJobStatus,
  KnowledgeBaseInfo,
  KnowledgeDocument,
  KnowledgeHit,
  KnowledgeSearchOptions,
} from "../protocol/knowledge-types.js";

/** A file to upload: a File (its own name), or bytes / text / a Blob with a name. */
export type KnowledgeUpload = File | { name: string; content: Blob | Uint8Array | string; type?: string };

/** How the client sends one request: JSON bodies as JSON, FormData as multipart. */
export type ServiceRequest = <T>(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
) => Promise<T>;

const BASES = "/v1/knowledge-bases";
const basePath = (name: string) => `${BASES}/${encodeURIComponent(name)}`;

function formOf(files: readonly KnowledgeUpload[]): FormData {
  if (files.length === 0) throw new TypeError("files: give at least one document to upload");
  const form = new FormData();
  for (const file of files) {
    if (file instanceof Blob) {
      form.append("file", file, file.name);
      continue;
    }
    if (typeof file?.name !== "string" || file.name === "")
      throw new TypeError("files: each upload needs a name (the document's file name)");
    const { content } = file;
    const blob =
      content instanceof Blob
        ? content
        : new Blob([content as BlobPart], { type: file.type ?? "application/octet-stream" });
    form.append("file", blob, file.name);
  }
  return form;
}

/**
 * The user's knowledge bases on the service (`client.knowledge`): create, list and delete bases;
 * upload documents (indexed in the background: follow each returned job with `job` or
 * `waitForJob`); list and delete documents; search. Errors are the client's ServiceError (404 for
 * a base the user does not have, or a service without knowledge bases).
 */
export class KnowledgeBases {
  constructor(private readonly request: ServiceRequest) {}

  async list(): Promise<KnowledgeBaseInfo[]> {
    return (await this.request<RouteResponse<"listKnowledgeBases">>("GET", BASES)).knowledgeBases;
  }

  /** `name`: letters, digits, `_`, `.` or `-` (at most 64); a taken name is a 409. */
  create(name: string, description?: string): Promise<KnowledgeBaseInfo> {
    return this.request("POST", BASES, description === undefined ? { name } : { name, description });
  }

  /** Deletes the base and its documents. */
  async delete(name: string): Promise<void> {
    await this.request("DELETE", basePath(name));
  }

  /** Uploads documents (multipart); each gets an indexing job, returned in the order given. */
  async upload(name: string, files: readonly KnowledgeUpload[], signal?: AbortSignal): Promise<IndexJob[]> {
    const body = formOf(files);
    return (
      await this.request<RouteResponse<"uploadDocuments">>(
        "POST",
        `${basePath(name)}/documents`,
        body,
        signal,
      )
    ).jobs;
  }

  /** An indexing job's status and progress. */
  job(name: string, jobId: string): Promise<IndexJob> {
    return this.request("GET", `${basePath(name)}/jobs/${encodeURIComponent(jobId)}`);
  }

  /** Polls the job until it is `done` or `failed` (every `intervalMs`, default 250) and returns it. */
  async waitForJob(
    name: string,
    jobId: string,
    options: { intervalMs?: number; signal?: AbortSignal } = {},
  ): Promise<IndexJob> {
    for (;;) {
      options.signal?.throwIfAborted();
      const job = await this.job(name, jobId);
      if (job.status === "done" || job.status === "failed") return job;
      await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 250));
    }
  }

  async documents(name: string): Promise<KnowledgeDocument[]> {
    return (await this.request<RouteResponse<"listDocuments">>("GET", `${basePath(name)}/documents`))
      .documents;
  }

  async deleteDocument(name: string, documentId: string): Promise<void> {
    await this.request("DELETE", `${basePath(name)}/documents/${encodeURIComponent(documentId)}`);
  }

  /** The passages best matching `query` (or several queries), with their citations. */
  async search(
    name: string,
    query: string | string[],
    options: KnowledgeSearchOptions = {},
  ): Promise<KnowledgeHit[]> {
    return (
      await this.request<RouteResponse<"searchKnowledge">>("POST", `${basePath(name)}/search`, {
        query,
        ...options,
      })
    ).hits;
  }
}
