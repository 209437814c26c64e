// Runs before every npm script that needs node_modules (start, test, admin, db:*, bench): a fresh
// clone works with any of them alone. `npm ci` installs exactly what package-lock.json records and
// fails when the lock file does not match package.json. Its output goes to stderr: stdout belongs to
// the script (`npm run admin -- ... --json`).
import { execSync } from "node:child_process";
import { existsSync } from "node:fs";

if (!existsSync(new URL("../node_modules/.bin/deno", import.meta.url))) {
  console.error("[setup] node_modules missing: running npm ci");
  execSync("npm ci --no-audit --no-fund", { stdio: ["ignore", 2, 2], cwd: new URL("..", import.meta.url) });
}
