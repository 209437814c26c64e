// The SDK as a classic script for a plain <script> tag: src/index.ts transpiled to CommonJS inside a
// function, its exports on window.EventhubSDK. One builder for dist/eventhub-sdk.js (build.mjs) and
// the copy the api function serves (scripts/build-function-assets.ts).
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const SDK_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** The classic script and the transpiler's diagnostics. */
export function buildClassicScript() {
  const version = JSON.parse(readFileSync(join(SDK_ROOT, "package.json"), "utf8")).version;
  const source = readFileSync(join(SDK_ROOT, "src", "index.ts"), "utf8");
  const { outputText, diagnostics } = ts.transpileModule(source, {
    fileName: "index.ts",
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, removeComments: false },
  });
  // src/index.ts imports nothing, so no module loader is needed.
  if (/\brequire\(/.test(outputText)) throw new Error("src/index.ts must not import anything: the classic script has no module loader");
  const script =
    `/*! @eventhub/sdk ${version}: classic script, exposes window.EventhubSDK */\n` +
    `(function () {\n"use strict";\nvar exports = {};\n${outputText.replace(/^"use strict";\n/, "")}\n` +
    `window.EventhubSDK = Object.freeze(exports);\n})();\n`;
  return { script, version, diagnostics: diagnostics ?? [] };
}
