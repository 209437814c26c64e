// Debian's Chromium for the browser tests (tests/docs/*.browser.test.ts): `npm test` installs it when
// missing (as root; otherwise it prints the apt-get line), and playwright-core drives it. Never a
// browser download of Playwright's own: this machine reaches only the npm registry and Debian.
import { existsSync } from "node:fs";
import process from "node:process";
import { ensurePackages } from "./local-postgres.ts";

export const CHROMIUM_PATH = "/usr/bin/chromium";
export const CHROMIUM_INSTALL = "sudo apt-get install -y chromium";

/** Launch flags: headless without a sandbox (root), and none of Chromium's own calls to Google's hosts. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Installs Debian's chromium when missing and running as root; otherwise says how. Never throws. */
export function ensureChromium(): boolean {
  if (existsSync(CHROMIUM_PATH)) return true;
  try {
    ensurePackages([{ name: "chromium", proof: CHROMIUM_PATH }]);
  } catch (error) {
    process.stderr.write(`[chromium] ${error instanceof Error ? error.message : error}\n`);
  }
  return existsSync(CHROMIUM_PATH);
}

if (import.meta.main) {
  // npm test: a missing browser fails the browser test (with this same line), not the whole run.
  if (!ensureChromium()) process.stderr.write(`[chromium] missing; the browser tests will fail. Install it with: ${CHROMIUM_INSTALL}\n`);
}
