// The docs hold together: every relative link reaches a file of the repository (and a heading, when
// it names one), nothing points outside the repository, the README stays a front door, every code
// block has a language the snippets test runs (or says why it cannot run), every `npm run` names a
// script, and prose lines stay readable.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { anchors, codeBlocks, docFiles, proseLines, readDoc, relativeLinks } from "./markdown.ts";

/** Guides that colleagues' branches add (webhooks, MCP client setup, generated clients): linked before they land. */
const PENDING_DOCS = new Set(["docs/webhooks.md", "docs/mcp-clients.md"]);
/** The languages tests/docs/snippets.e2e.test.ts runs. */
const RUNNABLE_LANGUAGES = new Set(["sh", "ts", "json", "sql"]);
/** Pictures, not code: drawn by the Markdown viewer, nothing to run. */
const DIAGRAM_LANGUAGES = new Set(["mermaid"]);
/** Blocks marked no-run, across all docs: few, each with its reason. */
const MAX_NOT_RUN = 8;

const files = docFiles();

describe("the docs", () => {
  it("link only to files of the repository, and to headings that exist", () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const { line, target } of relativeLinks(file)) {
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const resolved = path === "" ? file : normalize(join(dirname(file), path));
        if (resolved.startsWith("..")) broken.push(`${file}:${line}: ${target} leaves the repository`);
        else if (!existsSync(join(REPO_ROOT, resolved))) {
          if (!PENDING_DOCS.has(resolved)) broken.push(`${file}:${line}: ${target} does not exist`);
        } else if (anchor !== undefined && resolved.endsWith(".md") && !anchors(resolved).has(anchor)) {
          broken.push(`${file}:${line}: ${target} names no heading of ${resolved}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("name no file outside the repository (the spec and design notes a clone does not have)", () => {
    const outside = files.flatMap((file) => readDoc(file).split("\n").flatMap((text, index) =>
      /\.\.\/shared|\bSPEC\b|DESIGN\.md/.test(text) ? [`${file}:${index + 1}: ${text.trim()}`] : []));
    expect(outside).toEqual([]);
  });

  it("keep the README a front door of at most 200 lines, with the two commands CI and newcomers run", () => {
    const readme = readDoc("README.md");
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
    const commands = codeBlocks("README.md").flatMap((block) => block.code.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim()));
    expect(commands).toEqual(expect.arrayContaining(["npm start", "npm test"]));
    // .ci/run runs the README's test command.
    expect(readFileSync(join(REPO_ROOT, ".ci", "run"), "utf8")).toMatch(/^npm test$/m);
  });

  it("give every code block a language the snippets test runs, and a reason on each that cannot run", () => {
    const blocks = files.flatMap(codeBlocks);
    const problems = blocks.flatMap((block) => {
      const where = `${block.file}:${block.line}`;
      if (DIAGRAM_LANGUAGES.has(block.lang)) return [];
      if (!RUNNABLE_LANGUAGES.has(block.lang)) return [`${where}: language "${block.lang}" is not one the snippets test runs`];
      if ("no-run" in block.attributes && block.attributes["no-run"]!.trim().length < 10) return [`${where}: no-run needs its reason`];
      return [];
    });
    expect(problems).toEqual([]);
    expect(blocks.filter((block) => "no-run" in block.attributes).length).toBeLessThanOrEqual(MAX_NOT_RUN);
  });

  it("show code only in fenced blocks, which the snippets test sees (an indented block would escape it)", () => {
    const indented = files.flatMap((file) => {
      const lines = proseLines(file);
      return lines.flatMap(({ line, text }, index) => {
        const previous = lines[index - 1];
        const afterBlank = previous?.line === line - 1 && previous.text.trim() === "";
        const beforeThat = lines.slice(0, index - 1).reverse().find((candidate) => candidate.text.trim() !== "");
        const continuesList = beforeThat !== undefined && /^\s*([-*+]|\d+\.)\s|^\s{2,}\S/.test(beforeThat.text);
        return afterBlank && !continuesList && /^ {4,}\S/.test(text) ? [`${file}:${line}: ${text.trim()}`] : [];
      });
    });
    expect(indented).toEqual([]);
  });

  it("name only files of the repository in code spans (paths from the root, supabase/functions or the migrations)", () => {
    const bases = ["", "docs", "supabase/functions", "supabase/migrations"];
    // Files of the reader's own project that a client guide tells them to write.
    const readersFiles = new Set([".cursor/mcp.json", ".vscode/mcp.json"]);
    const named = files.flatMap((file) =>
      [...readDoc(file).matchAll(/`((?:[\w.-]+\/)+[\w.-]+\.(?:ts|sql|sol|json|toml|md|yml|yaml|mjs|sh|patch)|\d{14}_\w+\.sql)`/g)]
        .map((m) => ({ file, path: m[1]! }))
        .filter(({ path }) => !path.startsWith(".local/") && !readersFiles.has(path)));
    expect(named.length).toBeGreaterThan(50);
    const missing = named.filter(({ path }) => !bases.some((base) => existsSync(join(REPO_ROOT, base, path))));
    expect(missing.map(({ file, path }) => `${file}: ${path}`)).toEqual([]);
  });

  it("name only npm scripts that package.json has", () => {
    const scripts = Object.keys(JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).scripts);
    const unknown = files.flatMap((file) =>
      [...readDoc(file).matchAll(/npm run (?:-s )?([a-z][a-z:-]*)/g)].map((m) => m[1]!).filter((name) => !scripts.includes(name))
        .map((name) => `${file}: npm run ${name}`));
    expect(unknown).toEqual([]);
  });

  it("name only benchmark suites that scripts/bench/run.ts has", () => {
    const suites = [...readFileSync(join(REPO_ROOT, "scripts", "bench", "run.ts"), "utf8").matchAll(/^ {2}([a-z]+): /gm)].map((m) => m[1]!);
    const unknown = files.flatMap((file) =>
      [...readDoc(file).matchAll(/npm run bench -- ((?:[a-z]+ ?)+)/g)].flatMap((m) => m[1]!.trim().split(" "))
        .filter((name) => !suites.includes(name)).map((name) => `${file}: npm run bench -- ${name}`));
    expect(suites.length).toBeGreaterThan(5);
    expect(unknown).toEqual([]);
  });

  it("keep prose lines (outside code blocks and tables) within 120 characters", () => {
    const long = files.flatMap((file) => proseLines(file)
      .filter(({ text }) => !text.startsWith("|") && [...text].length > 120)
      .map(({ line, text }) => `${file}:${line}: ${[...text].length} characters`));
    expect(long).toEqual([]);
  });
});
