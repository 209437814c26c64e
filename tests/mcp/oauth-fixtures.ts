// The public MCP endpoint's OAuth tests: a local SMTP server that keeps the mails it receives (the
// service sends through nodemailer to it, the real client code path), the app on a database of its
// own, and a browser-like walk through sign-in and consent with fetch and a cookie jar.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import postgres from "postgres";
import { type MailSink, startMailSink } from "../../scripts/lib/mail-sink.ts";
import { connectionFrom, createTestContext, type TestContext } from "../setup/test-context.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

export interface MailCatcher extends MailSink {
  /** The code of the newest mail to `address`, waiting for it to arrive. */
  codeFor(address: string, after?: number): Promise<string>;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const sink = await startMailSink();
  return {
    ...sink,
    async codeFor(address, after = 0) {
      for (let i = 0; i < 200; i++) {
        const mail = sink.mails.slice(after).reverse().find((m) => m.to.includes(address.toLowerCase()));
        const code = mail && /sign-in code is (\d{6})/.exec(mail.raw)?.[1];
        if (code) return code;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error(`no code mailed to ${address}`);
    },
  };
}

export const ROOT = "http://127.0.0.1:54321";
export const RESOURCE = `${ROOT}/mcp`;

export interface OAuthTestContext extends TestContext {
  mail: MailCatcher;
  /** The API root the app is reached at (ROOT in process; the gateway's URL end to end). */
  root?: string;
  /**
   * In-process fetch of the app (absolute URLs under ROOT), as from a client at `peer` (127.0.0.1 by
   * default); end to end the socket decides and `peer` is ignored.
   */
  fetch: (input: string | URL | Request, init?: RequestInit, peer?: string) => Promise<Response>;
}

export async function createOAuthTestContext(env: Record<string, string> = {}): Promise<OAuthTestContext> {
  const mail = await startMailCatcher();
  const context = await createTestContext({ SMTP_URL: mail.url, MAIL_FROM: "Events <no-reply@example.test>", PUBLIC_API_ROOT: ROOT, ...env });
  const fetch = async (input: string | URL | Request, init?: RequestInit, peer = "127.0.0.1") => {
    const request = input instanceof Request ? input : new Request(input.toString(), init);
    return context.app.fetch(request, connectionFrom(peer));
  };
  return {
    ...context,
    mail,
    fetch,
    async close() {
      await context.close();
      await mail.close();
    },
  };
}

/** A browser's view: cookies kept between requests, forms read from the pages. */
export class Browser {
  cookies = new Map<string, string>();
  private readonly origin: string | null;
  constructor(private readonly ctx: OAuthTestContext, origin?: string | null) {
    this.origin = origin === undefined ? (ctx.root ?? ROOT) : origin;
  }

  /** `peer`: the client's address, in process only (OAuthTestContext.fetch). */
  async request(url: string, init: RequestInit = {}, peer?: string): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size) headers.set("cookie", [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; "));
    if (init.method === "POST" && this.origin) headers.set("origin", this.origin);
    const response = await this.ctx.fetch(new URL(url, this.ctx.root ?? ROOT).toString(), { ...init, headers, redirect: "manual" }, peer);
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, value] = pair!.split("=");
      this.cookies.set(name!, value!);
    }
    return response;
  }

  post(url: string, fields: Record<string, string | string[]>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
    return this.request(url, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
  }
}

/** The hidden inputs of the first form in `html`. */
export function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[m[1]!] = m[2]!.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">");
  }
  return fields;
}

/** The URL the page's form posting to `path` (/oauth/...) sends to: under the root the service's links use. */
export function formAction(html: string, path: string): string | undefined {
  return [...html.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!)
    .find((action) => new URL(action, ROOT).pathname.endsWith(path));
}

/**
 * Signs in by e-mail code on the page the authorize (or grants) step showed; returns the next response.
 * Asked again within the address's resend interval, it waits the Retry-After once, as a person would.
 */
export async function signInByEmail(ctx: OAuthTestContext, browser: Browser, page: string, email: string): Promise<Response> {
  const before = ctx.mail.mails.length;
  const signIn = formAction(page, "/oauth/sign-in") ?? "/oauth/sign-in";
  let codeForm = await browser.post(signIn, { ...hiddenFields(page), email });
  if (codeForm.status === 429) {
    await new Promise((resolve) => setTimeout(resolve, Number(codeForm.headers.get("retry-after")) * 1000));
    codeForm = await browser.post(signIn, { ...hiddenFields(page), email });
  }
  if (codeForm.status !== 200) throw new Error(`sign-in answered ${codeForm.status}: ${await codeForm.text()}`);
  const code = await ctx.mail.codeFor(email, before);
  const codePage = await codeForm.text();
  return browser.post(formAction(codePage, "/oauth/sign-in/verify")!, { ...hiddenFields(codePage), code });
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** Serves JSON documents on 127.0.0.1 (Client ID Metadata Documents); `documents` maps a path to a body. */
export async function startDocumentServer(): Promise<{ base: string; documents: Map<string, string>; server: Server; close(): Promise<void> }> {
  const documents = new Map<string, string>();
  const server = createServer((req, res) => {
    const body = documents.get(req.url ?? "");
    if (body === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(body);
  });
  await listenOnLoopback(server);
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, documents, server, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * The app over real HTTP on 127.0.0.1, for a browser (the pages need an address to reach it). `app`
 * is read per request, so the server can start first and its `root` go into the app's configuration
 * (PUBLIC_API_ROOT). Set-Cookie headers pass one by one.
 */
export async function serveOverHttp(app: () => { fetch(request: Request): Response | Promise<Response> }): Promise<{ root: string; close(): Promise<void> }> {
  let root = "";
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const body = chunks.length && req.method !== "GET" && req.method !== "HEAD" ? Buffer.concat(chunks) : undefined;
    const response = await app().fetch(new Request(`${root}${req.url}`, { method: req.method, headers, body }));
    const out: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => { if (name !== "set-cookie") out[name] = value; });
    const cookies = response.headers.getSetCookie();
    if (cookies.length) out["set-cookie"] = cookies;
    res.writeHead(response.status, out).end(Buffer.from(await response.arrayBuffer()));
  });
  await listenOnLoopback(server);
  root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    root,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The whole browser part of an authorization: open the authorize URL, sign in if asked, consent with
 * `scopes` (the page's default when omitted), follow to the client's redirect; returns its URL.
 */
export async function authorizeInBrowser(ctx: OAuthTestContext, browser: Browser, authorizeUrl: string, email: string,
    scopes?: string[]): Promise<URL> {
  let response = await browser.request(authorizeUrl);
  let page = await response.text();
  if (response.status !== 200) throw new Error(`authorize answered ${response.status}: ${page}`);
  if (formAction(page, "/oauth/sign-in")) {
    response = await signInByEmail(ctx, browser, page, email);
    if (response.status !== 303) throw new Error(`verify answered ${response.status}: ${await response.text()}`);
    response = await browser.request(response.headers.get("location")!);
    page = await response.text();
  }
  const consent = formAction(page, "/oauth/consent");
  if (!consent) throw new Error(`expected the consent page, got: ${page.slice(0, 500)}`);
  const chosen = scopes ?? [...page.matchAll(/name="scope" value="([^"]+)" checked/g)].map((m) => m[1]!);
  const decided = await browser.post(consent, { ...hiddenFields(page), scope: chosen, decision: "approve" });
  if (decided.status !== 303) throw new Error(`consent answered ${decided.status}: ${await decided.text()}`);
  return new URL(decided.headers.get("location")!);
}

export interface IssuedTokens {
  clientId: string;
  redirectUri: string;
  access_token: string;
  refresh_token: string;
  scope: string;
  browser: Browser;
}

/** Registers a client (DCR) and runs the flow with fetch: the tokens a client would hold. */
export async function issueTokens(ctx: OAuthTestContext, email: string, scopes?: string[], redirectUri = "http://127.0.0.1:7777/cb"): Promise<IssuedTokens> {
  const registered = await ctx.fetch(`${ROOT}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Fixture Client", redirect_uris: [redirectUri] }),
  });
  if (registered.status !== 201) throw new Error(`register answered ${registered.status}: ${await registered.text()}`);
  const { client_id: clientId } = await registered.json();
  const { verifier, challenge } = pkce();
  const browser = new Browser(ctx);
  const callback = await authorizeInBrowser(ctx, browser, authorizeUrl({ clientId, redirectUri, challenge, scope: scopes?.join(" ") }), email, scopes);
  const code = callback.searchParams.get("code");
  if (!code) throw new Error(`no code in ${callback}`);
  const response = await tokenRequest(ctx, { grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier, resource: RESOURCE });
  if (response.status !== 200) throw new Error(`token answered ${response.status}: ${await response.text()}`);
  return { clientId, redirectUri, browser, ...(await response.json()) };
}

export function authorizeUrl(o: { clientId: string; redirectUri: string; challenge: string; scope?: string; resource?: string; state?: string }): string {
  const url = new URL(`${ROOT}/oauth/authorize`);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", o.clientId);
  url.searchParams.set("redirect_uri", o.redirectUri);
  url.searchParams.set("code_challenge", o.challenge);
  url.searchParams.set("code_challenge_method", "S256");
  url.searchParams.set("state", o.state ?? "state-1");
  url.searchParams.set("resource", o.resource ?? RESOURCE);
  if (o.scope) url.searchParams.set("scope", o.scope);
  return url.toString();
}

export function tokenRequest(ctx: OAuthTestContext, fields: Record<string, string>): Promise<Response> {
  return ctx.fetch(`${ROOT}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields),
  });
}

/** A JSON-RPC request to /mcp with `headers`. */
export function mcpRequest(ctx: OAuthTestContext, headers: Record<string, string>, message: unknown = {
  jsonrpc: "2.0", id: 1, method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
}): Promise<Response> {
  return ctx.fetch(RESOURCE, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(message),
  });
}

/**
 * Two sessions race for one row: the first calls `call(sql, 1)` in an open transaction, the second
 * calls `call(sql, 2)` meanwhile (it must wait for the first's row lock), then the first commits.
 * Returns the first row of each answer: [winner, the one that waited].
 */
export async function raceOnRowLock<T extends Record<string, unknown>>(
  url: string,
  call: (sql: postgres.ReservedSql, n: 1 | 2) => postgres.PendingQuery<T[]>,
): Promise<[T, T]> {
  const sessions = postgres(url, { max: 2, onnotice: () => {} });
  const first = await sessions.reserve();
  const second = await sessions.reserve();
  try {
    await first`begin`;
    const [won] = await call(first, 1);
    const waiting = call(second, 2).execute();
    await new Promise((r) => setTimeout(r, 300));
    await first`commit`;
    const [lost] = await waiting;
    return [won!, lost!];
  } finally {
    first.release();
    second.release();
    await sessions.end();
  }
}
