import { Hono } from "hono";
import { API_JS } from "./assets/api-js.js";
import { APP_JS } from "./assets/app-js.js";
import { FOLD_JS } from "./assets/fold-js.js";
import { PAGE_CSS } from "./assets/page-css.js";
import { PAGE_HTML } from "./assets/page-html.js";
import { VIEW_JS } from "./assets/view-js.js";

/** The console's files, by path: one HTML page, its styles and four small ES modules. */
export const CONSOLE_ASSETS: Readonly<Record<string, { type: string; body: string }>> = {
  "/": { type: "text/html; charset=utf-8", body: PAGE_HTML },
  "/console/console.css": { type: "text/css; charset=utf-8", body: PAGE_CSS },
  "/console/app.js": { type: "text/javascript; charset=utf-8", body: APP_JS },
  "/console/api.js": { type: "text/javascript; charset=utf-8", body: API_JS },
  "/console/fold.js": { type: "text/javascript; charset=utf-8", body: FOLD_JS },
  "/console/view.js": { type: "text/javascript; charset=utf-8", body: VIEW_JS },
};

const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data: blob: https:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/**
 * The web console at `/`: a page that talks only to the service's /v1 API (sessions, replies,
 * confirmations, the SSE event stream). No build step: the page's files are strings served as is.
 */
export function consoleRoutes(): Hono {
  const app = new Hono();
  for (const [path, asset] of Object.entries(CONSOLE_ASSETS)) {
    app.get(path, (c) =>
      c.body(asset.body, 200, {
        "content-type": asset.type,
        "cache-control": "no-cache",
        ...SECURITY_HEADERS,
      }),
    );
  }
  return app;
}
