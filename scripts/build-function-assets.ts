// Writes the files the api function serves but cannot read where it is deployed (Supabase deploys
// the function folder, without node_modules or the workspace) as modules inside the function, so
// the edge bundle carries them:
//   api/checkout-page/sdk-script.generated.ts   the SDK's classic script (packages/sdk)
//   api/ticket-page/qr-encoder.generated.ts     qrcode-generator's browser file
// Usage: deno run -A scripts/build-function-assets.ts   (tests/hosted/function-assets.test.ts
// fails while a committed file is stale)
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { buildClassicScript } from "../packages/sdk/scripts/classic-script.mjs";
import { REPO_ROOT } from "./lib/local-postgres.ts";

export const REBUILD_COMMAND = "deno run -A scripts/build-function-assets.ts";

/** A module exporting `content` as the string constant `name`, with the header that says where it came from. */
function generatedModule(source: string, name: string, content: string): string {
  return `// Generated from ${source} by scripts/build-function-assets.ts: do not edit.\n` +
    `// Rebuild: ${REBUILD_COMMAND}\n` +
    `export const ${name} = ${JSON.stringify(content)};\n`;
}

/** Each generated file (path from the repository root) and its content, built in memory. */
export function buildFunctionAssets(): Map<string, string> {
  const sdk = buildClassicScript();
  if (sdk.diagnostics.length > 0) throw new Error(`packages/sdk/src/index.ts does not transpile: ${sdk.diagnostics.length} diagnostics`);
  const encoderPath = createRequire(join(REPO_ROOT, "package.json")).resolve("qrcode-generator");
  const encoderVersion = JSON.parse(readFileSync(join(REPO_ROOT, "node_modules", "qrcode-generator", "package.json"), "utf8")).version;
  return new Map([
    ["supabase/functions/api/checkout-page/sdk-script.generated.ts",
      generatedModule(`packages/sdk/src/index.ts (@eventhub/sdk ${sdk.version})`, "sdkScript", sdk.script)],
    ["supabase/functions/api/ticket-page/qr-encoder.generated.ts",
      generatedModule(`qrcode-generator ${encoderVersion} (dist/qrcode.js)`, "qrEncoder", readFileSync(encoderPath, "utf8"))],
  ]);
}

if (import.meta.main) {
  for (const [path, content] of buildFunctionAssets()) {
    writeFileSync(join(REPO_ROOT, path), content);
    console.log(`wrote ${path}`);
  }
}
