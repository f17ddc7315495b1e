/**
 * Layers, lowest first (DESIGN.md §2). A file may import from its own layer and the ones below it.
 * Layers on the same line are siblings: they may not import each other.
 */
const LAYERS = [
  ["message"],
  ["event"],
  ["model"],
  ["permission"],
  ["tool"],
  ["state"],
  ["agent"],
  ["middleware", "trace", "memory", "rag", "multiagent", "testing"],
  ["app"],
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
