// What a fresh `npm start` configures besides the demo chain, so that no route answers
// `*_not_configured` locally: the jobs function's and the sponsorship verifier's secrets (made up
// for this start unless set, and printed, so they can be sent with curl), the keys of QR tickets and
// NTAG 424 bracelets (made once and kept in .local/, so tickets and tags outlive a restart), a
// mailbox for e-mail sign-in codes (a local SMTP server that prints every mail), and the local auth
// server on /auth/v1, whose signing key is kept in .local/ too, so sessions outlive a restart.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { REPO_ROOT } from "./local-postgres.ts";
import { type MailSink, readableMail, startMailSink } from "./mail-sink.ts";

export const DEMO_MAIL_PORT = 54325;

/**
 * The anon key supabase-js is created with locally. Supabase's API gateway checks a project's key;
 * the local gateway does not (it grants nothing: sessions are what authenticate), so any non-empty
 * string works, and this is the one npm start prints.
 */
export const LOCAL_ANON_KEY = "local-anon-key";

export interface LocalServices {
  /**
   * The gateway's settings: JOBS_SECRET, SPONSORSHIP_VERIFIER_SECRETS, TICKET_SIGNING_KEYS, BRACELET_SUN_KEYS, SMTP_URL,
   * LOCAL_AUTH_ENABLED and LOCAL_AUTH_SIGNING_KEY, each unless `env` sets it.
   */
  env: Record<string, string>;
  /** What `npm start` prints about them. */
  lines: string[];
  mailSink: MailSink | undefined;
  stop(): Promise<void>;
}

const madeUpSecret = () => randomBytes(24).toString("base64url"); // 32 characters

/** The value kept in .local/<name>, made by `make` the first time. */
async function keptLocally(name: string, make: () => Promise<string>): Promise<{ value: string; file: string }> {
  const file = join(REPO_ROOT, ".local", name);
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, await make(), { mode: 0o600 });
  }
  return { value: readFileSync(file, "utf8"), file };
}

/** LOCAL_AUTH_SIGNING_KEY from `env`, else the key kept in .local/ (made the first time): npm start's and the admin CLI's. */
export async function localAuthSigningKey(env: Record<string, string | undefined>): Promise<{ value: string; file: string | undefined }> {
  if (env.LOCAL_AUTH_SIGNING_KEY) return { value: env.LOCAL_AUTH_SIGNING_KEY, file: undefined };
  return keptLocally("local-auth-signing-key.json", generateLocalAuthSigningKey);
}

export async function startLocalServices(
  env: Record<string, string | undefined>,
  options: { mailPort?: number; log?: (line: string) => void } = {},
): Promise<LocalServices> {
  const log = options.log ?? ((line: string) => console.log(line));
  const jobsSecret = env.JOBS_SECRET ?? madeUpSecret();
  const verifierSecret = env.SPONSORSHIP_VERIFIER_SECRETS ?? madeUpSecret();
  const ticketKeys = env.TICKET_SIGNING_KEYS ? undefined : await keptLocally("ticket-signing-key.json", () => generateTicketSigningKey("local"));
  const sunKeys = env.BRACELET_SUN_KEYS ? undefined : await keptLocally("bracelet-sun-keys.json", async () =>
    JSON.stringify({ metaReadKey: randomBytes(16).toString("hex"), fileReadKey: randomBytes(16).toString("hex") }));
  const localAuth = env.LOCAL_AUTH_ENABLED === "false" ? undefined : await localAuthSigningKey(env);
  let mailSink: MailSink | undefined;
  if (!env.SMTP_URL) {
    try {
      mailSink = await startMailSink({ port: options.mailPort ?? DEMO_MAIL_PORT, onMail: (mail) => log(`[mail] ${readableMail(mail)}`) });
    } catch (error) {
      console.error(`[mail] no local mailbox (set DEMO_MAIL_PORT to another port): ${error instanceof Error ? error.message : error}`);
    }
  }
  const smtpUrl = env.SMTP_URL ?? mailSink?.url;
  return {
    env: {
      JOBS_SECRET: jobsSecret,
      SPONSORSHIP_VERIFIER_SECRETS: verifierSecret,
      ...(ticketKeys ? { TICKET_SIGNING_KEYS: ticketKeys.value } : {}),
      ...(sunKeys ? { BRACELET_SUN_KEYS: sunKeys.value } : {}),
      ...(smtpUrl ? { SMTP_URL: smtpUrl } : {}),
      ...(localAuth ? { LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: localAuth.value } : {}),
    },
    lines: [
      `  Jobs secret   ${env.JOBS_SECRET ? "(JOBS_SECRET)" : jobsSecret}  (x-jobs-secret of POST /functions/v1/jobs)`,
      `  Verifier      ${env.SPONSORSHIP_VERIFIER_SECRETS ? "(SPONSORSHIP_VERIFIER_SECRETS)" : verifierSecret}  (x-service-provider-verifier-secret)`,
      `  Ticket keys   ${ticketKeys ? ticketKeys.file : "(TICKET_SIGNING_KEYS)"}  (public half: GET /api/v3/check-in/keys)`,
      `  SUN keys      ${sunKeys ? sunKeys.file : "(BRACELET_SUN_KEYS)"}  (program NTAG 424 bracelets with these)`,
      ...(mailSink ? [`  Mail          ${mailSink.url}  (sign-in codes are printed here as [mail] lines)`] : []),
      ...(localAuth ? [`  Auth key      ${localAuth.file ?? "(LOCAL_AUTH_SIGNING_KEY)"}  (signs /auth/v1 sessions; one for scripts: npm run admin -- session --user <id|email>)`] : []),
    ],
    mailSink,
    stop: async () => {
      await mailSink?.close();
    },
  };
}
