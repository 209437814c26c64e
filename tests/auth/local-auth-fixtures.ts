// The local auth server under test: a test context with it turned on, a mailbox for its codes, and
// supabase-js 2.109, the app's own client, calling the app in process.
import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { LOCAL_ANON_KEY } from "../../scripts/lib/local-services.ts";
import { type MailSink, startMailSink } from "../../scripts/lib/mail-sink.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import type { Environment } from "../../supabase/functions/_shared/platform/runtime.ts";
import { connectionFrom, createTestContext, type TestContext } from "../setup/test-context.ts";

/** What supabase-js is told the project's URL is; in process nothing listens there. */
export const PROJECT_URL = "http://127.0.0.1:54321";

export interface LocalAuth {
  t: TestContext;
  mail: MailSink;
  /** The server's signing key (LOCAL_AUTH_SIGNING_KEY). */
  signingKey: string;
  close(): Promise<void>;
}

export async function startLocalAuth(env: Environment = {}): Promise<LocalAuth> {
  const mail = await startMailSink();
  const signingKey = await generateLocalAuthSigningKey();
  const t = await createTestContext({ LOCAL_AUTH_ENABLED: "true", LOCAL_AUTH_SIGNING_KEY: signingKey, SMTP_URL: mail.url, ...env });
  return {
    t,
    mail,
    signingKey,
    close: async () => {
      await t.close();
      await mail.close();
    },
  };
}

/**
 * supabase-js creates its realtime client up front, and on Node 20 (no WebSocket global) wants a
 * WebSocket class for it. These clients never open a channel, so a class that refuses to be used.
 */
class NoWebSocket {
  constructor() {
    throw new Error("these tests use no realtime channel");
  }
}

/** supabase-js as the app creates it, its requests served by `fetch` (the app in process, from `peer`, by default). */
export function supabaseClient(target: LocalAuth | { url: string }, peer = "192.0.2.10"): SupabaseClient {
  const inProcess = "url" in target ? undefined : target.t;
  return createClient("url" in target ? target.url : PROJECT_URL, LOCAL_ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: NoWebSocket as unknown as typeof WebSocket },
    global: inProcess ? { fetch: (input, init) => Promise.resolve(inProcess.app.fetch(new Request(input, init), connectionFrom(peer))) } : {},
  });
}

/** The code of the newest mail to `email` (waiting for it a moment: the relay delivers asynchronously). */
export async function codeMailedTo(mail: MailSink, email: string, after = 0): Promise<string> {
  for (let waited = 0; waited < 5_000; waited += 20) {
    const mails = mail.mails.slice(after).filter((m) => m.to.includes(email.toLowerCase()));
    const subject = mails.at(-1) && /^subject: .*?(\d{6})/im.exec(mails.at(-1)!.raw);
    if (subject) return subject[1]!;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no sign-in code was mailed to ${email}`);
}

let addresses = 0;
export const newAddress = (name = "app") => `${name}-${process.pid}-${++addresses}-${Date.now().toString(36)}@example.com`;
