// The generated modules the api function serves (scripts/build-function-assets.ts) are committed,
// so a deployment carries them: rebuilt in memory here, each must equal the committed file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { buildFunctionAssets, REBUILD_COMMAND } from "../../scripts/build-function-assets.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";

it.each([...buildFunctionAssets()])("the committed %s is up to date", (path, content) => {
  const committed = readFileSync(join(REPO_ROOT, path), "utf8");
  expect(committed === content, `${path} is stale: run \`${REBUILD_COMMAND}\` and commit it`).toBe(true);
});
