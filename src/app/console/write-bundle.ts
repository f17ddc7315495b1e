// Writes the bundled console into a folder (npm run build: dist/app/console/bundle), so an installed
// package serves it without esbuild. Usage: tsx src/app/console/write-bundle.ts <folder>
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildConsoleAssets } from "./build-bundle.js";
import { BUNDLE_FILES } from "./bundle-files.js";

const folder = process.argv[2];
if (!folder) throw new TypeError("usage: write-bundle.ts <folder>");
const assets = await buildConsoleAssets();
await mkdir(folder, { recursive: true });
for (const [path, file] of Object.entries(BUNDLE_FILES)) {
  const asset = assets[path];
  if (!asset) throw new Error(`the console bundle has no ${path}`);
  await writeFile(join(folder, file), asset.body);
}
