// Builds every island in src/islands/ plus the loader with esbuild: one entry per island,
// shared chunks (splitting), content-hashed names, and dist/manifest.json mapping each island
// name to its file. The server embeds dist/ at compile time and reads the manifest.
import * as esbuild from "esbuild";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
fs.rmSync(dist, { recursive: true, force: true });

const islandDir = path.join(here, "src", "islands");
const names = fs.readdirSync(islandDir).filter((f) => f.endsWith(".jsx")).map((f) => f.slice(0, -4));
const entryPoints = Object.fromEntries([
  ...names.map((n) => [n, path.join(islandDir, `${n}.jsx`)]),
  ["_loader", path.join(here, "src", "loader.js")],
]);

const result = await esbuild.build({
  entryPoints,
  outdir: dist,
  bundle: true,
  splitting: true,
  format: "esm",
  minify: true,
  target: "es2019",
  entryNames: "[name]-[hash]",
  chunkNames: "chunks/[name]-[hash]",
  jsx: "automatic",
  jsxImportSource: "preact",
  alias: { react: "preact/compat", "react-dom": "preact/compat", "react/jsx-runtime": "preact/jsx-runtime" },
  metafile: true,
  logLevel: "warning",
});

const manifest = {};
for (const [file, out] of Object.entries(result.metafile.outputs)) {
  if (!out.entryPoint) continue;
  const entry = Object.entries(entryPoints).find(([, p]) => path.relative(here, p) === out.entryPoint);
  if (entry) manifest[entry[0]] = "islands/" + path.relative(dist, path.join(here, file)).split(path.sep).join("/");
}
fs.writeFileSync(path.join(dist, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
const sizes = Object.entries(result.metafile.outputs).map(([f, o]) => `${path.relative(here, f)} ${o.bytes} B`);
console.log(`islands: ${names.join(", ")}\n${sizes.join("\n")}`);
