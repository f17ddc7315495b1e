// Preloaded (--require) by sqlite-drivers.ts when BENCH_BETTER_SQLITE3_BINDING names a
// better_sqlite3.node built for this Node: better-sqlite3 then loads that binary instead of the one in
// node_modules (built for the Node the project installed with), so both drivers can be measured on one Node.
const Module = require("node:module");
const binding = process.env.BENCH_BETTER_SQLITE3_BINDING;
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (binding && request === "bindings" && parent?.filename.includes("better-sqlite3"))
    return () => require(binding);
  return load.call(this, request, parent, isMain);
};
