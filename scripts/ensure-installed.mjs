// prestart/pretest: a fresh clone works with `npm start` / `npm test` alone.
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync(new URL("../node_modules/.bin/deno", import.meta.url))) {
  console.error("[setup] node_modules missing: running npm install");
  execSync("npm install --no-audit --no-fund", { stdio: "inherit", cwd: new URL("..", import.meta.url) });
}
