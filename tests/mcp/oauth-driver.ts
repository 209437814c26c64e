// The person at the browser, for third-party MCP clients under test. A client such as mcp-remote
// opens the authorization URL with the `open` package, which on Linux runs xdg-open; with no
// desktop (DISPLAY, WAYLAND_DISPLAY and XDG_CURRENT_DESKTOP unset) xdg-open runs $BROWSER. The
// driver makes $BROWSER a tiny script that hands the URL to the test process, which then plays the
// person: requests the e-mail code, reads it from the local SMTP server, submits it, approves the
// consent page (its default, the read scopes) and follows the redirect to the client's loopback
// callback. It also obtains tokens for tests that only need a Bearer credential (the conformance run).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startGatewayProcess, type GatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { READ_SCOPES } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { allowsTool, PUBLIC_TOOL_SCOPES, type PublicToolName } from "../../supabase/functions/_shared/mcp/public-server.ts";
import { createTestContext } from "../setup/test-context.ts";
import { authorizeInBrowser, Browser, type OAuthTestContext, pkce, startMailCatcher } from "./oauth-fixtures.ts";

/** The consent page's default selection, sorted: what a person who just approves it grants. */
export const DEFAULT_SCOPES = [...READ_SCOPES].sort();

/** The public tools the default scopes cover (every scope each needs), sorted: what such a grant lists. */
export const DEFAULT_SCOPE_TOOLS = (Object.keys(PUBLIC_TOOL_SCOPES) as PublicToolName[])
  .filter((name) => allowsTool(name, DEFAULT_SCOPES))
  .sort();

export interface OAuthGateway extends OAuthTestContext {
  /** The gateway's own URL, also its PUBLIC_API_ROOT: the issuer, and `${root}/mcp` the resource. */
  root: string;
  gateway: GatewayProcess;
}

/**
 * The real Deno gateway (as `npm start` runs it) on a database of its own, mailing sign-in codes to
 * a local SMTP server; `fetch` is the real one; `env` adds to (or overrides) its settings. `close`
 * stops all three.
 */
export async function startOAuthGateway(env: Record<string, string> = {}): Promise<OAuthGateway> {
  const mail = await startMailCatcher();
  const port = await freePort();
  const root = `http://127.0.0.1:${port}`;
  const base = await createTestContext({ PUBLIC_API_ROOT: root });
  const gateway = await startGatewayProcess({
    DATABASE_URL: base.url, PORT: String(port), PUBLIC_API_ROOT: root, SMTP_URL: mail.url, MAIL_FROM: "Events <no-reply@example.test>",
    WEBHOOK_DISPATCH: "false", CHECKOUT_RECONCILE_SECONDS: "0", RELAYER_LOOP_SECONDS: "0",
    MCP_SIGN_IN_RESEND_SECONDS: String(base.config.MCP_SIGN_IN_RESEND_SECONDS), ...env,
  });
  return {
    ...base, mail, root, gateway, fetch: (input, init) => fetch(input, init),
    async close() {
      await gateway.stop("SIGKILL");
      await base.close();
      await mail.close();
    },
  };
}

export interface BrowserDriver {
  /** The client process's environment: BROWSER is the driver's script, no desktop to open instead. */
  env: Record<string, string>;
  /** The URLs the client opened so far. */
  opened(): string[];
  /** Waits for the client to open its `n`-th URL (1-based). */
  nextUrl(n?: number, timeoutMs?: number): Promise<URL>;
  close(): void;
}

export function startBrowserDriver(): BrowserDriver {
  const dir = mkdtempSync(join(tmpdir(), "oauth-driver-"));
  const log = join(dir, "opened");
  const script = join(dir, "browser");
  // xdg-open calls `$BROWSER <url>` and counts exit 0 as "opened".
  writeFileSync(script, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`);
  chmodSync(script, 0o755);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(DISPLAY|WAYLAND_DISPLAY|XDG_CURRENT_DESKTOP|DESKTOP_SESSION|KDE_FULL_SESSION|GNOME_DESKTOP_SESSION_ID|MATE_DESKTOP_SESSION_ID|WSL_DISTRO_NAME)$/.test(name)) env[name] = value;
  }
  env.BROWSER = script;
  const opened = () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []);
  return {
    env,
    opened,
    async nextUrl(n = 1, timeoutMs = 30_000) {
      for (const deadline = Date.now() + timeoutMs; Date.now() < deadline;) {
        const url = opened()[n - 1];
        if (url) return new URL(url);
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`the client opened no URL #${n} in ${timeoutMs} ms`);
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * The person's part of an authorization the client opened: sign in by e-mail code, approve the
 * consent page with `scopes` (its default, the read scopes, when omitted), then the browser follows
 * the redirect to the client's callback. Returns the callback URL and the client's answer to it.
 */
export async function completeAuthorization(ctx: OAuthTestContext, url: URL, email: string, scopes?: string[]): Promise<{ callback: URL; answer: Response }> {
  const callback = await authorizeInBrowser(ctx, new Browser(ctx), url.toString(), email, scopes);
  const answer = await fetch(callback, { redirect: "manual" });
  return { callback, answer };
}

/** The token response a public client would hold: dynamic registration, PKCE, sign-in, consent, exchange, over HTTP. */
export async function tokensOverHttp(ctx: OAuthGateway, email: string, scopes?: string[]): Promise<{
  clientId: string; access_token: string; refresh_token: string; scope: string; expires_in: number;
}> {
  const redirectUri = "http://127.0.0.1:9/callback"; // never reached: the driver reads the code off the redirect
  const resource = `${ctx.root}/mcp`;
  const registered = await fetch(`${ctx.root}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Conformance Suite", redirect_uris: [redirectUri] }),
  });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}: ${await registered.text()}`);
  const { client_id: clientId } = await registered.json() as { client_id: string };
  const { verifier, challenge } = pkce();
  const authorize = new URL(`${ctx.root}/oauth/authorize`);
  authorize.search = new URLSearchParams({
    response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256",
    state: "driver", resource, ...(scopes ? { scope: scopes.join(" ") } : {}),
  }).toString();
  const callback = await authorizeInBrowser(ctx, new Browser(ctx), authorize.toString(), email, scopes);
  const code = callback.searchParams.get("code");
  if (!code) throw new Error(`no code in ${callback}`);
  const exchanged = await fetch(`${ctx.root}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier, resource }),
  });
  if (exchanged.status !== 200) throw new Error(`token answered ${exchanged.status}: ${await exchanged.text()}`);
  return { clientId, ...(await exchanged.json()) };
}
