// Builds every island in src/islands/ plus the loader with esbuild: one entry per island,
// shared chunks (splitting), content-hashed names, and dist/manifest.json mapping each island
// name to its file. The server embeds dist/ at compile time and reads the manifest.
import * as esbuild from "esbuild";
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
// Built apart, then copied into dist/ file by file where the bytes differ: the server embeds
// dist/ and Cargo rebuilds it whenever a file there is touched, so an unchanged build touches
// nothing.
const staging = path.join(here, ".dist-build");
fs.rmSync(staging, { recursive: true, force: true });

const islandDir = path.join(here, "src", "islands");
const names = fs.readdirSync(islandDir).filter((f) => f.endsWith(".jsx")).map((f) => f.slice(0, -4));
const entryPoints = Object.fromEntries([
  ...names.map((n) => [n, path.join(islandDir, `${n}.jsx`)]),
  ["_loader", path.join(here, "src", "loader.js")],
]);

const result = await esbuild.build({
  entryPoints,
  outdir: staging,
  bundle: true,
  splitting: true,
  format: "esm",
  minify: true,
  charset: "utf8",
  target: "es2020",
  entryNames: "[name]-[hash]",
  chunkNames: "chunks/[name]-[hash]",
  jsx: "automatic",
  jsxImportSource: "preact",
  alias: { react: "./src/react.js", "react-dom": "./src/react.js", "react/jsx-runtime": "preact/jsx-runtime" },
  metafile: true,
  logLevel: "warning",
});

const manifest = {};
for (const [file, out] of Object.entries(result.metafile.outputs)) {
  if (!out.entryPoint) continue;
  const entry = Object.entries(entryPoints).find(([, p]) => path.relative(here, p) === out.entryPoint);
  if (entry) manifest[entry[0]] = "islands/" + path.relative(staging, path.join(here, file)).split(path.sep).join("/");
}
fs.writeFileSync(path.join(staging, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");

// Budgets: the gzip size of what each island pulls in (its entry and every chunk it imports
// statically), and for each page listed in pages.json its island code (its islands and their
// shared chunks, each counted once) and its total JavaScript (plus the 2–3 KB runtime every page
// loads for the navigation niceties). No page may load more than 15 KB gzip of island code; a page
// without islands loads none (only the runtime).
const BUDGET = 15 * 1024;
const gz = (file) => zlib.gzipSync(fs.readFileSync(path.join(here, file)), { level: 9 }).length;
const closure = (file, seen = new Set()) => {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const imp of result.metafile.outputs[file].imports) if (imp.kind === "import-statement") closure(imp.path, seen);
  return seen;
};
const outputOf = (name) => Object.keys(result.metafile.outputs).find((f) => result.metafile.outputs[f].entryPoint === path.relative(here, entryPoints[name]));
const files = (names) => {
  const all = new Set();
  for (const n of names) for (const f of closure(outputOf(n))) all.add(f);
  return all;
};
const kb = (b) => (b / 1024).toFixed(1) + " KB";
const total = (set) => [...set].reduce((sum, f) => sum + gz(f), 0);
const runtime = files(["_loader"]);
const islandCode = (list) => total(new Set([...files(list)].filter((f) => !runtime.has(f))));
console.log(`islands: ${names.join(", ")}`);
console.log(`runtime (every page): ${kb(total(runtime))} gzip`);
for (const n of names) console.log(`  island ${n.padEnd(14)} ${kb(islandCode([n])).padStart(8)} gzip with Preact and shared chunks`);
const pages = JSON.parse(fs.readFileSync(path.join(here, "pages.json"), "utf8"));
let over = false;
console.log("  page                    island code   all JS");
for (const [page, list] of Object.entries(pages)) {
  const unknown = list.filter((n) => !names.includes(n));
  if (unknown.length) throw new Error(`pages.json: ${page} names unknown islands ${unknown.join(", ")}`);
  const bytes = list.length ? islandCode(list) : 0;
  over ||= bytes > BUDGET;
  console.log(`  ${page.padEnd(22)} ${kb(bytes).padStart(9)} ${kb(total(files(["_loader", ...list]))).padStart(9)}  ${list.join(", ") || "(no islands)"}${bytes > BUDGET ? "  OVER 15 KB" : ""}`);
}
if (over) {
  console.error("islands: a page is over its 15 KB gzip island-code budget");
  process.exit(1);
}

// dist/ becomes what was built, touching only the files that changed.
const listed = (dir, base = dir) =>
  fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listed(path.join(dir, e.name), base) : [path.relative(base, path.join(dir, e.name))])) : [];
const built = new Set(listed(staging));
for (const file of listed(dist)) if (!built.has(file)) fs.rmSync(path.join(dist, file));
for (const file of built) {
  const [from, to] = [path.join(staging, file), path.join(dist, file)];
  if (fs.existsSync(to) && fs.readFileSync(from).equals(fs.readFileSync(to))) continue;
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
}
fs.rmSync(staging, { recursive: true, force: true });
