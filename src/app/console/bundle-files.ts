/** URL path → file name of a prebuilt console bundle folder. */
export const BUNDLE_FILES: Readonly<Record<string, string>> = {
  "/": "index.html",
  "/console/app.js": "app.js",
  "/console/studio.js": "studio.js",
  "/console/trace.js": "trace.js",
  "/console/console.css": "console.css",
};

export const BUNDLE_TYPES: Readonly<Record<string, string>> = {
  "/": "text/html; charset=utf-8",
  "/console/app.js": "text/javascript; charset=utf-8",
  "/console/studio.js": "text/javascript; charset=utf-8",
  "/console/trace.js": "text/javascript; charset=utf-8",
  "/console/console.css": "text/css; charset=utf-8",
};
