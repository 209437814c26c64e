// Builds the SDK with the TypeScript compiler API and nothing else (no bundler, no dependency of
// its own: `typescript` is resolved from the workspace root):
//   dist/index.js, dist/index.d.ts   ESM with type declarations (tsconfig.json)
//   dist/eventhub-sdk.js             classic script for a plain <script> tag: window.EventhubSDK
// Usage: node scripts/build.mjs [--out <dir>]   (default dist/; the tests build into a temp dir)
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";
import { buildClassicScript, SDK_ROOT as root } from "./classic-script.mjs";

const outIndex = process.argv.indexOf("--out");
const outDir = outIndex > 0 ? resolve(process.argv[outIndex + 1] ?? "") : join(root, "dist");

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

// 2. The classic script (classic-script.mjs, shared with the copy the api function serves).
const { script: classic, version, diagnostics } = buildClassicScript();
report(diagnostics);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "eventhub-sdk.js"), classic);
process.stdout.write(`@eventhub/sdk ${version} built into ${outDir}: index.js, index.d.ts, eventhub-sdk.js\n`);
