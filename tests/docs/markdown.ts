// The repository's docs as data: README.md and docs/**/*.md, their fenced code blocks (with the info
// string's language and attributes), their headings' anchors and their relative links. Read by the
// docs tests (links, lint, configuration reference, snippets).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";

export interface CodeBlock {
  /** The doc's path from the repository root, e.g. `docs/quickstart.md`. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The info string's `name="value"` attributes, e.g. `no-run="needs a Supabase project"`. */
  attributes: Record<string, string>;
  code: string;
}

/** README.md and every Markdown file under docs/, as paths from the repository root. */
export function docFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith(".md") ? [relative(REPO_ROOT, path)] : [];
    });
  return ["README.md", ...walk(join(REPO_ROOT, "docs")).sort()];
}

export function readDoc(file: string): string {
  return readFileSync(join(REPO_ROOT, file), "utf8");
}

const FENCE = /^\s*```(.*)$/;
const ATTRIBUTE = /([a-z-]+)="([^"]*)"/g;

export function codeBlocks(file: string): CodeBlock[] {
  const lines = readDoc(file).split("\n");
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const info = open[1]!.trim();
    const end = lines.findIndex((line, j) => j > i && line.trimStart().startsWith("```"));
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block that never closes`);
    blocks.push({
      file,
      line: i + 1,
      lang: info.split(/\s/)[0] ?? "",
      attributes: Object.fromEntries([...info.matchAll(ATTRIBUTE)].map((m) => [m[1]!, m[2]!])),
      code: dedent(lines.slice(i + 1, end)),
    });
    i = end;
  }
  return blocks;
}

/** A block inside a list item is indented with it; its code is not. */
function dedent(lines: string[]): string {
  const indent = Math.min(...lines.filter((line) => line.trim() !== "").map((line) => /^ */.exec(line)![0].length));
  return lines.map((line) => line.slice(indent)).join("\n");
}

/** The doc's lines outside fenced code blocks, with their 1-based numbers. */
export function proseLines(file: string): Array<{ line: number; text: string }> {
  let fenced = false;
  return readDoc(file).split("\n").flatMap((text, index) => {
    if (text.trimStart().startsWith("```")) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [{ line: index + 1, text }];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

export function anchors(file: string): Set<string> {
  return new Set(proseLines(file).flatMap(({ text }) => {
    const heading = /^#{1,6}\s+(.*)$/.exec(text);
    return heading ? [anchorOf(heading[1]!.replace(/`/g, ""))] : [];
  }));
}

/** Markdown links `[text](target)` outside code, without external (scheme) targets. */
export function relativeLinks(file: string): Array<{ line: number; target: string }> {
  return proseLines(file).flatMap(({ line, text }) =>
    [...text.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ line, target })));
}
