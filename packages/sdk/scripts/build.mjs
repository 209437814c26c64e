// Builds the SDK with the TypeScript compiler API and nothing else (no bundler, no dependency of
// its own: `typescript` is resolved from the workspace root):
//   dist/index.js, dist/index.d.ts   ESM with type declarations (tsconfig.json)
//   dist/eventhub-sdk.js             classic script for a plain <script> tag: window.EventhubSDK
// Usage: node scripts/build.mjs [--out <dir>]   (default dist/; the tests build into a temp dir)
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outIndex = process.argv.indexOf("--out");
const outDir = outIndex > 0 ? resolve(process.argv[outIndex + 1] ?? "") : join(root, "dist");
const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;

function report(diagnostics) {
  if (diagnostics.length === 0) return;
  const host = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => "\n" };
  process.stderr.write(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  process.exit(1);
}

// 1. ESM + .d.ts, type-checked, as tsconfig.json says.
const configPath = join(root, "tsconfig.json");
const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
if (error) report([error]);
const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, { outDir }, configPath);
report(parsed.errors);
const program = ts.createProgram(parsed.fileNames, parsed.options);
const emitted = program.emit();
report([...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics]);

// 2. The classic script: the same source as CommonJS inside a function, its exports on window.
// src/index.ts imports nothing, so no module loader is needed.
const source = readFileSync(join(root, "src", "index.ts"), "utf8");
const { outputText, diagnostics } = ts.transpileModule(source, {
  fileName: "index.ts",
  reportDiagnostics: true,
  compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, removeComments: false },
});
report(diagnostics ?? []);
if (/\brequire\(/.test(outputText)) throw new Error("src/index.ts must not import anything: the classic script has no module loader");
const classic =
  `/*! @eventhub/sdk ${version}: classic script, exposes window.EventhubSDK */\n` +
  `(function () {\n"use strict";\nvar exports = {};\n${outputText.replace(/^"use strict";\n/, "")}\n` +
  `window.EventhubSDK = Object.freeze(exports);\n})();\n`;
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "eventhub-sdk.js"), classic);
process.stdout.write(`@eventhub/sdk ${version} built into ${outDir}: index.js, index.d.ts, eventhub-sdk.js\n`);
