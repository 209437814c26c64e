#!/usr/bin/env bash
# npm test: type-check, vitest suites (in-process and end-to-end), then pgTAP. Installs the Debian
# packages it needs (as root) and starts the local cluster; ends with one summary line.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
mkdir -p .local

deno run -A scripts/db.ts ensure || exit 1
# Debian's chromium for the browser tests (tests/docs/*.browser.test.ts); missing, only those fail.
deno run -A scripts/lib/chromium.ts

echo "== tsc"
tsc -p tsconfig.json --noEmit || exit 1

echo "== vitest"
vitest run --reporter=default --reporter=json --outputFile.json=.local/vitest-report.json
vitest_status=$?

echo "== pgTAP"
deno run -A scripts/pgtap.ts | tee .local/pgtap-report.txt
pgtap_status=${PIPESTATUS[0]}

node -e '
  const fs = require("node:fs");
  let passed = 0, failed = 0;
  try {
    const r = JSON.parse(fs.readFileSync(".local/vitest-report.json", "utf8"));
    passed += r.numPassedTests; failed += r.numFailedTests;
  } catch { failed += 1; }
  const tap = fs.existsSync(".local/pgtap-report.txt") ? fs.readFileSync(".local/pgtap-report.txt", "utf8") : "";
  const total = /Files=\d+, Tests=(\d+)/.exec(tap);
  const bad = [...tap.matchAll(/Failed (\d+)\/\d+ subtests/g)].reduce((n, m) => n + Number(m[1]), 0);
  if (total) { passed += Number(total[1]) - bad; failed += bad; } else { failed += 1; }
  console.log(`tests: ${passed} passed, ${failed} failed`);
'
[ "$vitest_status" -eq 0 ] && [ "$pgtap_status" -eq 0 ]
