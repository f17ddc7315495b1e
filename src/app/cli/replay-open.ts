import { spawn } from "node:child_process";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { basename } from "node:path";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { readTrace } from "../../trace/jsonl-writer.js";
import { consoleAssets } from "../console/index.js";

/** The page: the console's styles, and the studio's trace view drawn by /console/trace.js. */
const page = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title} · agentscope trace</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/console.css">
<script type="module" src="/console/trace.js"></script>
</head>
<body class="trace-page">
<main aria-label="Trace">
<h1>${title}</h1>
<div id="trace"><p class="note">Loading…</p></div>
</main>
</body>
</html>
`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const HEADERS = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "cache-control": "no-cache",
};

/** A trace file served as the studio's trace view, on 127.0.0.1. */
export interface OpenedTrace {
  url: string;
  events: number;
  close(): Promise<void>;
}

/**
 * `agentscope replay --open FILE`: reads the trace (a bad line throws its TraceFileError before
 * anything is served), serves its trace view on 127.0.0.1 (`port`, default any free one) and
 * answers the address. Only this machine can reach it; it serves the file's events and the
 * console's scripts and styles, nothing else.
 */
export async function openTrace(file: string, options: { port?: number } = {}): Promise<OpenedTrace> {
  const events = await readTrace(file);
  const assets = await consoleAssets();
  const app = new Hono();
  const html = page(escapeHtml(basename(file)));
  app.get("/", (c) => c.html(html, 200, HEADERS));
  app.get("/trace/events", (c) => c.json(events, 200, HEADERS));
  for (const path of ["/console/trace.js", "/console/studio.js", "/console/console.css"])
    app.get(path, (c) => {
      const asset = assets[path];
      if (!asset) return c.text(`the console bundle has no ${path}`, 500);
      return c.body(asset.body, 200, { "content-type": asset.type, ...HEADERS });
    });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: options.port ?? 0 }) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    events: events.length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Opens `url` in the system's browser: `$BROWSER` when set (`none` opens nothing), else `open` on
 * macOS, `start` on Windows, `xdg-open` elsewhere. Answers false when none could be started.
 */
export function launchBrowser(url: string, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (env.BROWSER === "none") return Promise.resolve(false);
  const [command, args] = env.BROWSER
    ? [env.BROWSER, [url]]
    : process.platform === "darwin"
      ? ["open", [url]]
      : process.platform === "win32"
        ? ["cmd", ["/c", "start", "", url]]
        : ["xdg-open", [url]];
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "ignore", detached: true });
    child.once("error", () => resolve(false));
    child.once("spawn", () => {
      child.unref();
      resolve(true);
    });
  });
}
