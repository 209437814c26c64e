// One summary of zod issues for every surface (REST, MCP tool arguments, pages): a large invalid
// request must not buy a larger answer, so at most 20 issues are echoed (with the total), the
// message names the first three, and every path and message is clipped.
import { ApiError } from "./errors.ts";

const ECHOED_ISSUES = 20;
const SUMMARISED_ISSUES = 3;
const ISSUE_TEXT_CHARS = 200;

/** A zod issue as every validator reports it (zod's own, or a Standard Schema issue). */
export interface Issue {
  message: string;
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  code?: string;
  params?: Record<string, unknown>;
}

const clip = (text: string) => (text.length > ISSUE_TEXT_CHARS ? `${text.slice(0, ISSUE_TEXT_CHARS - 1)}…` : text);
const pathOf = (issue: Issue) => (issue.path ?? []).map((p) => String(typeof p === "object" ? p.key : p)).join(".");

export type Validated = "request" | "arguments" | "action";

/** The message ("The request is invalid: …") and details ({ issues, issueCount }) of a validation failure. */
export function issueSummary(what: Validated, all: readonly Issue[]) {
  const issues = all.slice(0, ECHOED_ISSUES).map((i) => ({ path: clip(pathOf(i)), message: clip(i.message) }));
  const summary = issues.slice(0, SUMMARISED_ISSUES).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  const more = all.length > SUMMARISED_ISSUES ? ` (and ${all.length - SUMMARISED_ISSUES} more)` : "";
  return { message: `The ${what} ${what === "arguments" ? "are" : "is"} invalid: ${summary}${more}`, details: { issues, issueCount: all.length } };
}

/** A schema can give an issue its own stable code with ctx.addIssue({ code: "custom", params: { code } }). */
function issueCode(issues: readonly Issue[]): string {
  const coded = issues.find((i) => i.code === "custom" && typeof i.params?.code === "string");
  return (coded?.params?.code as string | undefined) ?? "validation_failed";
}

/** The 400 of an invalid request. */
export function validationError(issues: readonly Issue[], what: Validated = "request"): ApiError {
  const { message, details } = issueSummary(what, issues);
  return new ApiError(400, issueCode(issues), message, details);
}

/** A UTF-16 surrogate without its pair (JSON can carry one as an escape, "\\ud800"). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `text` with each lone surrogate replaced by U+FFFD: for records of what was sent (the audit), never for data. */
export const wellFormed = (text: string) => text.replace(new RegExp(LONE_SURROGATE.source, "g"), "\uFFFD");

/** The path of the first string (or key) in `value` holding a lone surrogate, else undefined. */
function loneSurrogateAt(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === "string") return LONE_SURROGATE.test(value) ? path : undefined;
  if (value === null || typeof value !== "object") return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (LONE_SURROGATE.test(key)) return [...path, key];
    const found = loneSurrogateAt(item, [...path, key]);
    if (found) return found;
  }
  return undefined;
}

/**
 * Refuses text that is not well-formed Unicode: PostgreSQL would store a lone surrogate as U+FFFD,
 * silently changing what was sent, so it is a 400 instead.
 */
export function refuseLoneSurrogates(value: unknown, what: Validated = "request"): void {
  const path = loneSurrogateAt(value);
  if (path) throw validationError([{ path, message: "holds a lone UTF-16 surrogate (not well-formed Unicode)" }], what);
}
