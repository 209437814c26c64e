// prestart/pretest: a fresh clone works with `npm start` / `npm test` alone.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync(new URL("../node_modules/.bin/deno", import.meta.url))) {
  console.error("[setup] node_modules missing: running npm ci");
  execSync("npm ci --no-audit --no-fund", { stdio: "inherit", cwd: new URL("..", import.meta.url) });
}
