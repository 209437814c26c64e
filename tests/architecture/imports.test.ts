// Every surface goes through _shared: a function folder imports only its own files and _shared, so
// a function loads only what it uses; _shared imports no function; and inside the api function each
// surface folder (api/<surface>/) imports only itself and _shared, while the files at api/'s top
// (app.ts, registry.ts, index.ts) assemble the surfaces. Static imports and re-exports are walked.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const FUNCTIONS_DIR = join(import.meta.dirname, "../../supabase/functions");

/** Every .ts file under `dir`. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourcesUnder(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** The relative specifiers `source` imports or re-exports: `... from "./x.ts"` and `import "./x.ts"`. */
export function relativeImportsOf(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom|^\s*import)\s+["'](\.{1,2}\/[^"']+)["']/gm)].map((match) => match[1]!);
}

/** The folders a file may import from: its function's (its surface's, inside api/) and _shared. */
function allowedRoots(file: string): string[] {
  const [top, second, third] = relative(FUNCTIONS_DIR, file).split(sep);
  if (top === "_shared") return ["_shared"];
  if (top === "api" && third !== undefined) return ["_shared", `api/${second}`];
  return ["_shared", top!];
}

/** Every import that crosses into a folder its file may not import from, as "<file> imports <specifier>". */
function crossings(): string[] {
  const found: string[] = [];
  for (const file of sourcesUnder(FUNCTIONS_DIR)) {
    const allowed = allowedRoots(file);
    for (const specifier of relativeImportsOf(readFileSync(file, "utf8"))) {
      const target = relative(FUNCTIONS_DIR, resolve(dirname(file), specifier)).split(sep).join("/");
      if (!allowed.some((root) => target.startsWith(`${root}/`))) found.push(`${relative(FUNCTIONS_DIR, file)} imports ${specifier}`);
    }
  }
  return found;
}

describe("imports between function folders", () => {
  it("reads imports, multi-line ones and re-exports included", () => {
    const source = `import { a,\n  b } from "../api/mcp/x.ts";\nexport { c } from './y.ts';\nimport "../z.ts";\nimport { d } from "hono";`;
    expect(relativeImportsOf(source)).toEqual(["../api/mcp/x.ts", "./y.ts", "../z.ts"]);
  });

  it("no function folder imports another's, _shared imports no function, and no api surface imports another's", () => {
    expect(crossings()).toEqual([]);
  });
});
