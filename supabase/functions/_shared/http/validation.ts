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
