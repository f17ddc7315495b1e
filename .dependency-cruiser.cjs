/**
 * Layers, lowest first (DESIGN.md §2). A file may import from its own layer and the ones below it.
 * Layers on the same line are siblings: they may not import each other.
 */
const LAYERS = [
  ["message"],
  // The service's wire contract (schemas, error kinds, route table): browser-safe, on the data floor.
  ["protocol"],
  ["event"],
  ["model"],
  ["permission"],
  ["tool"],
  ["state"],
  ["agent"],
  ["middleware", "trace", "rag", "workspace", "multiagent", "testing", "guardrail"],
  // memory builds on rag's embeddings and vector stores; eval replays agents with testing's
  // scripted model and reads trace/ files, so it sits above them.
  ["memory", "client", "eval"],
  ["react", "app"],
];

const forbidden = [];
LAYERS.forEach((row, level) => {
  const above = LAYERS.slice(level + 1).flat();
  for (const layer of row) {
    const siblings = row.filter((other) => other !== layer);
    const banned = [...above, ...siblings];
    if (banned.length === 0) continue;
    forbidden.push({
      name: `${layer}-imports-upward`,
      comment: `src/${layer} may only import from layers below it`,
      severity: "error",
      from: { path: `^(test/architecture/fixtures/)?src/${layer}/` },
      to: { path: `^(test/architecture/fixtures/)?src/(${banned.join("|")})/` },
    });
  }
});
// The typed client runs in browsers: it may only use the plain data layers.
forbidden.push({
  name: "client-imports-only-data",
  comment: "src/client may only import src/message, src/protocol and src/event (it is browser-safe)",
  severity: "error",
  from: { path: "^(test/architecture/fixtures/)?src/client/" },
  to: { path: "^(test/architecture/fixtures/)?src/(?!client/|message/|protocol/|event/)[^/]+/" },
});
forbidden.push({
  name: "no-circular",
  severity: "error",
  from: { path: "^src/" },
  to: { circular: true },
});

module.exports = {
  forbidden,
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
  LAYERS,
};
