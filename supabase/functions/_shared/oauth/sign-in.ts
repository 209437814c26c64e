// Signing in on the authorization server's pages: a 6-digit code mailed to the address, then a
// browser session (its cookie's token is stored as a hash), ended by sign-out. Codes are stored
// keyed with MCP_TOKEN_SECRET; the limits (per address and IP, per IP, the address's resend interval,
// tries per code, wrong codes per address a day) are taken in Postgres (mcp_oauth.issue_sign_in_code,
// verify_sign_in_code). The session's forms carry a CSRF token derived from it. The local auth
// server's e-mail codes are these codes too (app-auth/sessions.ts).
import { randomInt } from "node:crypto";
import { type BrowserSession, keyedHash, randomToken, sha256 } from "../auth/mcp-oauth.ts";
import type { Config } from "../config.ts";
import { matchesSecret } from "../crypto/constant-time.ts";
import type { Database } from "../db/database.ts";
import { sendMail } from "../mail/mailer.ts";

const SIGN_IN_WINDOW_SECONDS = 15 * 60;
// An address a mail relay takes as one recipient: a dot-atom local part (RFC 5322 atext, letters of
// any script) and a host name, so nothing reaches the mailer that it would refuse (a 503 for the
// person's typo) or read as a list or a display name (`,`, `<`, `"`).
const LABEL = "[\\p{L}\\p{N}](?:[\\p{L}\\p{N}-]{0,61}[\\p{L}\\p{N}])?";
const EMAIL = new RegExp(`^[\\p{L}\\p{N}!#$%&'*+/=?^_\`{|}~.-]{1,64}@(?=.{1,255}$)${LABEL}(?:\\.${LABEL})*$`, "u");
const SIGN_IN_ID = /^[0-9a-f]{24}$/;

export const isEmailAddress = (text: string) => EMAIL.test(text);

/** A sign-in code at rest: keyed with MCP_TOKEN_SECRET and bound to its address. */
export const signInCodeHash = (config: Config, email: string, code: string) => keyedHash(config, "sign-in-code", `${email}:${code}`);

/**
 * The limits of checking a code, in the order the verify functions take them: tries per code, tries
 * per IP in the window, wrong codes per address and day.
 */
export function codeCheckLimits(config: Config): [maxAttempts: number, perIp: number, windowSeconds: number, wrongPerDay: number] {
  return [config.MCP_SIGN_IN_MAX_ATTEMPTS, config.MCP_SIGN_IN_REQUESTS_PER_IP * 2, SIGN_IN_WINDOW_SECONDS, config.MCP_SIGN_IN_WRONG_CODES_PER_DAY];
}

/**
 * A new code for `email`, to be mailed (mailSignInCode). A 429 ApiError, its Retry-After the wait:
 * within the address's resend interval, past the codes of this (address, IP) or of this IP in 15
 * minutes, or once the address took its wrong codes of the day.
 */
export async function issueSignInCode(db: Database, config: Config, email: string, ip: string): Promise<{ signInId: string; code: string }> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const [row] = await db.query((sql) => sql<{ id: string }[]>`
      select mcp_oauth.issue_sign_in_code(${email}, ${ip}, ${signInCodeHash(config, email, code)},
        ${config.MCP_SIGN_IN_CODE_SECONDS}, ${config.MCP_SIGN_IN_CODES_PER_ADDRESS}, ${config.MCP_SIGN_IN_REQUESTS_PER_IP},
        ${SIGN_IN_WINDOW_SECONDS}, ${config.MCP_SIGN_IN_RESEND_SECONDS}, ${config.MCP_SIGN_IN_WRONG_CODES_PER_DAY}) as id`);
  return { signInId: row!.id, code };
}

/** Mails the code; `connecting` names the client when the sign-in is part of an authorization. A 503 ApiError when mail cannot be sent. */
export async function mailSignInCode(config: Config, email: string, code: string, connecting: string | undefined): Promise<void> {
  const minutes = Math.round(config.MCP_SIGN_IN_CODE_SECONDS / 60);
  await sendMail(config, {
    to: email,
    subject: `Your sign-in code: ${code}`,
    text: `Your sign-in code is ${code}\n\nIt works once, for ${minutes} minutes.${connecting !== undefined ? ` You are connecting "${connecting}" to your account.` : ""}\nIf you did not ask for it, ignore this mail.\n`,
  });
}

/**
 * Checks a code and opens a browser session: its token for the cookie, or why not (start_again: the
 * form does not name a sign-in; wrong_code; code_expired: expired or used up). A 429 ApiError past
 * the attempt limits.
 */
export async function signInWithCode(
  db: Database,
  config: Config,
  attempt: { signInId: string; email: string; code: string; ip: string },
): Promise<{ sessionToken: string } | { error: string }> {
  const { signInId, email, code, ip } = attempt;
  if (!isEmailAddress(email) || !SIGN_IN_ID.test(signInId)) return { error: "start_again" };
  const sessionToken = randomToken("mcs_");
  const [maxAttempts, perIp, windowSeconds, wrongPerDay] = codeCheckLimits(config);
  const [outcome] = await db.query((sql) => sql<{ error: string | null; user_id: string | null }[]>`
      select * from mcp_oauth.verify_sign_in_code(${signInId}, ${email}, ${signInCodeHash(config, email, code)},
        ${ip}, ${maxAttempts}, ${perIp}, ${windowSeconds}, ${wrongPerDay}, ${sha256(sessionToken)}, ${config.MCP_BROWSER_SESSION_SECONDS})`);
  return outcome!.error ? { error: outcome!.error } : { sessionToken };
}

/** Ends the session: its row is deleted, so its cookie no longer signs anyone in. Grants are untouched. */
export async function endBrowserSession(db: Database, session: BrowserSession): Promise<void> {
  await db.query((sql) => sql`select mcp_oauth.end_browser_session(${session.hash})`);
}

/** The CSRF token of the session's forms: keyed, derived from the session, so no table holds it. */
export function csrfOf(config: Config, session: BrowserSession): string {
  return Buffer.from(keyedHash(config, "csrf", Buffer.from(session.hash).toString("hex"))).toString("base64url");
}

export function csrfValid(config: Config, session: BrowserSession, presented: unknown): boolean {
  return typeof presented === "string" && matchesSecret(presented, [csrfOf(config, session)]);
}
