import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CliError } from "../../src/app/cli/cli-error.js";
import { embeddingFrom, kbCommand } from "../../src/app/cli/kb-command.js";
import { GeminiEmbedding, OllamaEmbedding, OpenAIEmbedding } from "../../src/model/index.js";
import { wireServerForFile } from "../model/helpers/wire-server.js";
import { textSink } from "../support/text-sink.js";

describe("agentscope kb add: directories, globs and bad files", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentscope-kb-batch-"));
    await mkdir(join(dir, "manuals", "pumps"), { recursive: true });
    await mkdir(join(dir, "manuals", ".git"), { recursive: true });
    await writeFile(
      join(dir, "manuals", "reactor.md"),
      "# Reactor\nThe aurora reactor runs at forty kelvin.",
    );
    await writeFile(join(dir, "manuals", "pumps", "valve.txt"), "Close the coolant valve before service.");
    await writeFile(join(dir, "manuals", ".env"), "SECRET=1");
    await writeFile(join(dir, "manuals", ".git", "config"), "[core]");
    await writeFile(join(dir, "manuals", "broken.pdf"), "this is not a PDF");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("adds a directory recursively (hidden files skipped), reports the bad file and adds the rest", async () => {
    const db = join(dir, "dir.db");
    const out = textSink();
    const failure = await kbCommand(["add", "docs", join(dir, "manuals"), "--db", db], {
      out,
      err: textSink(),
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CliError);
    expect((failure as CliError).message).toMatch(/^kb add: 1 input was not added:\n {2}.*broken\.pdf: /);
    expect((failure as CliError).hint).toBe('2 files were added to "docs"; fix or leave out the ones above');
    expect(out.text).toBe("pumps/valve.txt: 1 chunks\nreactor.md: 1 chunks\n");

    const listed = textSink();
    await kbCommand(["list", "docs", "--db", db], { out: listed });
    expect(listed.text).toBe("pumps/valve.txt  1 chunks\nreactor.md  1 chunks\n");
    // Citations name the file relative to what was added, never the absolute path.
    const found = textSink();
    await kbCommand(["search", "docs", "aurora reactor", "--top-k", "1", "--db", db], { out: found });
    expect(found.text).toMatch(/^\[1\] reactor\.md > Reactor {2}\(score/);
    expect(found.text).not.toContain(dir);
  });

  it("adds the files a quoted glob matches, cited below its fixed part", async () => {
    const db = join(dir, "glob.db");
    const out = textSink();
    await kbCommand(["add", "docs", join(dir, "manuals", "**", "*.txt"), "--db", db], {
      out,
      err: textSink(),
    });
    expect(out.text).toBe("pumps/valve.txt: 1 chunks\n");
  });

  it("a missing path or an empty glob is reported; the other inputs are still added", async () => {
    const db = join(dir, "missing.db");
    const out = textSink();
    const failure = await kbCommand(
      [
        "add",
        "docs",
        join(dir, "nope.md"),
        join(dir, "manuals", "*.xyz"),
        join(dir, "manuals", "reactor.md"),
        "--db",
        db,
      ],
      { out, err: textSink() },
    ).catch((error: unknown) => error as CliError);
    expect(failure).toBeInstanceOf(CliError);
    expect((failure as CliError).message).toContain("nope.md: no such file or directory");
    expect((failure as CliError).message).toContain("*.xyz: the pattern matches no file");
    expect(out.text).toBe("reactor.md: 1 chunks\n");
  });

  it("search, list and remove of a base that does not exist name it", async () => {
    const db = join(dir, "empty.db");
    for (const args of [
      ["search", "nobase", "reactor"],
      ["list", "nobase"],
      ["remove", "nobase", "x.md"],
    ]) {
      await expect(kbCommand([...args, "--db", db], { out: textSink() })).rejects.toThrow(
        `there is no knowledge base "nobase" in ${db} (create it with: agentscope kb add nobase FILES)`,
      );
    }
  });
});

describe("agentscope kb --embedding provider:model", () => {
  const server = wireServerForFile();

  it("resolves provider specs like model specs", () => {
    expect(embeddingFrom("openai:text-embedding-3-small")).toBeInstanceOf(OpenAIEmbedding);
    expect(embeddingFrom("ollama:nomic-embed-text")).toBeInstanceOf(OllamaEmbedding);
    expect(embeddingFrom("gemini:gemini-embedding-001").dimensions).toBe(3072);
    expect(embeddingFrom("gemini:gemini-embedding-001")).toBeInstanceOf(GeminiEmbedding);
    expect(embeddingFrom("hash:64").dimensions).toBe(64);
    expect(() => embeddingFrom("anthropic:claude-sonnet-4-5")).toThrow(
      /unknown provider "anthropic" \(known: openai, gemini, ollama, dashscope/,
    );
    expect(() => embeddingFrom("hash:0")).toThrow(/hash takes a dimension count/);
    expect(() => embeddingFrom("openai:my-embedder")).toThrow(/pass `dimensions`/);
  });

  it("embeds through the provider when adding", async () => {
    server.queue({
      headers: { "content-type": "application/json" },
      frames: [
        JSON.stringify({
          data: [{ index: 0, embedding: [0.6, 0.8, ...new Array(1534).fill(0)] }],
          usage: { prompt_tokens: 9 },
        }),
      ],
    });
    const dir = await mkdtemp(join(tmpdir(), "agentscope-kb-embed-"));
    try {
      await writeFile(join(dir, "note.md"), "The aurora reactor runs at forty kelvin.");
      const saved = process.env.OPENAI_API_KEY;
      process.env.OPENAI_API_KEY = "sk-test";
      try {
        const out = textSink();
        await kbCommand(
          [
            "add",
            "docs",
            join(dir, "note.md"),
            "--embedding",
            `openai:text-embedding-3-small@${server.url}/v1`,
            "--db",
            join(dir, "v.db"),
          ],
          { out },
        );
        expect(out.text).toBe("note.md: 1 chunks\n");
      } finally {
        if (saved === undefined) delete process.env.OPENAI_API_KEY;
        else process.env.OPENAI_API_KEY = saved;
      }
      expect(server.requests[0]).toMatchObject({
        path: "/v1/embeddings",
        body: { model: "text-embedding-3-small" },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("agentscope kb list | head", () => {
  it("exits quietly when its output pipe closes early (EPIPE)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentscope-kb-epipe-"));
    try {
      const db = join(dir, "v.db");
      for (let i = 0; i < 3; i++) await writeFile(join(dir, `note${i}.md`), `Note ${i} about reactors.`);
      await kbCommand(["add", "docs", dir, "--db", db], { out: textSink() }).catch(() => undefined);
      const tsx = createRequire(import.meta.url).resolve("tsx");
      const main = fileURLToPath(new URL("../../src/app/cli/main.ts", import.meta.url));
      const child = spawn(process.execPath, ["--import", tsx, main, "kb", "list", "docs", "--db", db], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      child.stdout.destroy(); // the reader is gone before the first line is written
      let stderr = "";
      child.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
      expect(stderr).toBe("");
      expect(code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
