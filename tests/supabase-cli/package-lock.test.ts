// `npm ci` refuses a lock file that lacks any of the CLI's per-platform binary packages, even those of
// other platforms, which it never installs here. The registry the project's machines use serves only
// the linux-x64 one of this version, so an `npm install` there leaves the others out of the lock.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";

const lock = JSON.parse(readFileSync(join(REPO_ROOT, "package-lock.json"), "utf8"));

describe("package-lock.json and the Supabase CLI", () => {
  it("lists the binary package of every platform the CLI names, at the CLI's version", () => {
    const cli = lock.packages["node_modules/supabase"];
    const platforms: Record<string, string> = cli.optionalDependencies;
    expect(Object.keys(platforms)).toContain("@supabase/cli-linux-x64");
    for (const [name, version] of Object.entries(platforms)) {
      expect(lock.packages[`node_modules/${name}`], name).toMatchObject({ version, optional: true });
    }
  });
});
