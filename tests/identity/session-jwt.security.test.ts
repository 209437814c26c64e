// requireSession guards the app-backend functions: these tests mount it on a real base app with one
// route, over the test context's real database. The tokens are shaped like Supabase Auth's (its
// legacy HS256 secret, its ES256/RS256 signing keys named by kid in the project's JWKS); the local
// auth server's own tokens are tests/auth/local-auth.*.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireSession } from "../../supabase/functions/_shared/auth/middleware.ts";
import { scopeOf } from "../../supabase/functions/_shared/auth/principal.ts";
import { createBaseApp } from "../../supabase/functions/_shared/http/app.ts";
import { createTestContext, expectErrorBody, TEST_JWT_SECRET, type TestContext } from "../setup/test-context.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

function whoamiApp(t: TestContext) {
  const app = createBaseApp({ config: t.config, db: t.db });
  // What the database sees for a session request: its role, its user and the users RLS lets it read.
  app.get("/database-view", requireSession, async (c) => {
    const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{ role: string; id: string; users: number }[]>`
      select current_user::text as role, core.current_user_id()::text as id, (select count(*)::int from core.users) as users`);
    return c.json(row!);
  });
  app.get("/whoami", requireSession, (c) => {
    const principal = c.get("principal");
    return c.json({ userId: principal.kind === "session" ? principal.userId : null });
  });
  return app;
}

const secret = new TextEncoder().encode(TEST_JWT_SECRET);
const now = () => Math.floor(Date.now() / 1000);

interface TokenOptions {
  sub?: string;
  claims?: JWTPayload;
  audience?: string;
  expiresAt?: number | null;
  issuer?: string;
}

function hsToken(options: TokenOptions = {}, key: Uint8Array = secret): Promise<string> {
  return build(options).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(key);
}

function build({ sub = randomUUID(), claims = {}, audience = "authenticated", expiresAt = now() + 300, issuer }: TokenOptions) {
  const jwt = new SignJWT({ role: "authenticated", ...claims }).setSubject(sub).setAudience(audience).setIssuedAt();
  if (expiresAt !== null) jwt.setExpirationTime(expiresAt);
  if (issuer) jwt.setIssuer(issuer);
  return jwt;
}

let t: TestContext;
let app: ReturnType<typeof whoamiApp>;
beforeAll(async () => {
  t = await createTestContext();
  app = whoamiApp(t);
});
afterAll(() => t.close());

const whoami = (token: string | null, target = app) =>
  target.request("/whoami", token === null ? {} : { headers: { authorization: `Bearer ${token}` } });

describe("session requests run as their user, under RLS", () => {
  it("a token's own app_user_id claim cannot make it another user; it reads as authenticated, only itself", async () => {
    const victim = await t.userWithKey();
    const sub = randomUUID();
    const self = await (await whoami(await hsToken({ sub }))).json();
    const token = await hsToken({ sub, claims: { app_user_id: victim.id } });
    const response = await app.request("/database-view", { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ role: "authenticated", id: self.userId, users: 1 });
  });
});

describe("HS256 session tokens", () => {
  it("a valid token answers 200 with the service user of its sub", async () => {
    const response = await whoami(await hsToken());
    expect(response.status).toBe(200);
    expect((await response.json()).userId).toMatch(/^[0-9a-f]{24}$/);
  });

  it("the same sub maps to the same user, provisioned once; another sub to another user", async () => {
    const sub = randomUUID();
    const first = await (await whoami(await hsToken({ sub, claims: { email: "sess@example.com" } }))).json();
    const second = await (await whoami(await hsToken({ sub }))).json();
    expect(second.userId).toBe(first.userId);
    const rows = await t.owner`select id, email from core.users where auth_user_id = ${sub}`;
    expect(rows).toEqual([{ id: first.userId, email: "sess@example.com" }]);

    const other = await (await whoami(await hsToken())).json();
    expect(other.userId).not.toBe(first.userId);
  });

  it("a user made by the admin CLI is found by its auth user id", async () => {
    const user = await t.userWithKey();
    const response = await whoami(await hsToken({ sub: user.authUserId }));
    expect((await response.json()).userId).toBe(user.id);
  });

  it("an expired token answers 401 invalid_session", async () => {
    await expectErrorBody(await whoami(await hsToken({ expiresAt: now() - 60 })), 401, "invalid_session");
  });

  it("a token without exp answers 401 invalid_session", async () => {
    await expectErrorBody(await whoami(await hsToken({ expiresAt: null })), 401, "invalid_session");
  });

  it("a token signed with another secret answers 401 invalid_session", async () => {
    const wrong = new TextEncoder().encode("another-secret-that-is-also-long-enough-012345");
    await expectErrorBody(await whoami(await hsToken({}, wrong)), 401, "invalid_session");
  });

  it("a tampered payload answers 401 invalid_session", async () => {
    const [header, , signature] = (await hsToken()).split(".");
    const payload = Buffer.from(JSON.stringify({ sub: randomUUID(), role: "authenticated", aud: "authenticated", exp: now() + 300 })).toString("base64url");
    await expectErrorBody(await whoami(`${header}.${payload}.${signature}`), 401, "invalid_session");
  });

  it("an unsigned token (alg none) answers 401 invalid_session", async () => {
    const encode = (v: object) => Buffer.from(JSON.stringify(v)).toString("base64url");
    const token = `${encode({ alg: "none", typ: "JWT" })}.${encode({ sub: randomUUID(), role: "authenticated", aud: "authenticated", exp: now() + 300 })}.`;
    await expectErrorBody(await whoami(token), 401, "invalid_session");
  });

  it("the wrong audience answers 401 invalid_session", async () => {
    await expectErrorBody(await whoami(await hsToken({ audience: "some-other-app" })), 401, "invalid_session");
  });

  it.each(["anon", "service_role"])("role %s answers 401 invalid_session", async (role) => {
    await expectErrorBody(await whoami(await hsToken({ claims: { role } })), 401, "invalid_session");
  });

  it("a sub that is not a uuid answers 401 invalid_session", async () => {
    await expectErrorBody(await whoami(await hsToken({ sub: "not-a-uuid" })), 401, "invalid_session");
  });

  it("garbage in the bearer answers 401 invalid_session", async () => {
    await expectErrorBody(await whoami("not.a.jwt"), 401, "invalid_session");
  });

  it("a missing Authorization header answers 401 missing_session", async () => {
    await expectErrorBody(await whoami(null), 401, "missing_session");
  });

  it("another scheme, or a bare token, answers 401 missing_session", async () => {
    const token = await hsToken();
    for (const authorization of [`Basic ${token}`, token, "Bearer "]) {
      await expectErrorBody(await app.request("/whoami", { headers: { authorization } }), 401, "missing_session");
    }
  });

  it("an API key is not a session", async () => {
    const user = await t.userWithKey();
    await expectErrorBody(await app.request("/whoami", { headers: { "x-api-key": user.key } }), 401, "missing_session");
    await expectErrorBody(await whoami(user.key), 401, "invalid_session");
  });
});

describe("the token's email claim", () => {
  it("an email already held by another user neither locks the session out nor links it to that user", async () => {
    const holder = await t.userWithKey([], { email: "taken@example.com" });
    const sub = randomUUID();
    const response = await whoami(await hsToken({ sub, claims: { email: "taken@example.com" } }));
    expect(response.status).toBe(200);
    const { userId } = await response.json();
    expect(userId).not.toBe(holder.id);
    expect(await t.owner`select email from core.users where id = ${userId}`).toEqual([{ email: null }]);
    expect(await t.owner`select id from core.users where email = 'taken@example.com'`).toEqual([{ id: holder.id }]);
  });

  it.each([
    ["not an e-mail address", "not an email"],
    ["a NUL byte", "a\u0000b@example.com"],
  ])("an email claim the database refuses (%s) still signs in, without the email", async (_label, email) => {
    const sub = randomUUID();
    const response = await whoami(await hsToken({ sub, claims: { email } }));
    expect(response.status).toBe(200);
    expect(await t.owner`select email from core.users where auth_user_id = ${sub}`).toEqual([{ email: null }]);
  });
});

describe("JWT_ISSUER", () => {
  let issuerContext: TestContext;
  beforeAll(async () => {
    issuerContext = await createTestContext({ JWT_ISSUER: "https://auth.example/auth/v1" });
  });
  afterAll(() => issuerContext.close());

  it("accepts the configured issuer and refuses others or none", async () => {
    const issuerApp = whoamiApp(issuerContext);
    expect((await whoami(await hsToken({ issuer: "https://auth.example/auth/v1" }), issuerApp)).status).toBe(200);
    await expectErrorBody(await whoami(await hsToken({ issuer: "https://evil.example/auth/v1" }), issuerApp), 401, "invalid_session");
    await expectErrorBody(await whoami(await hsToken(), issuerApp), 401, "invalid_session");
  });
});

describe("asymmetric tokens verified against a JWKS", () => {
  let server: Server;
  let jwksRequests = 0;
  let jwksContext: TestContext;
  let jwksOnlyContext: TestContext;
  let jwksApp: ReturnType<typeof whoamiApp>;
  let signingKey: CryptoKey;
  let rsaKey: CryptoKey;
  const kid = "test-key-1";
  const rsaKid = "test-rsa-key";

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    signingKey = pair.privateKey;
    const rsa = await generateKeyPair("RS256", { extractable: true });
    rsaKey = rsa.privateKey;
    const publicJwks = [
      { ...(await exportJWK(pair.publicKey)), kid, alg: "ES256", use: "sig" },
      { ...(await exportJWK(rsa.publicKey)), kid: rsaKid, alg: "RS256", use: "sig" },
    ];
    server = createServer((request, response) => {
      if (request.url !== "/auth/v1/.well-known/jwks.json") {
        response.writeHead(404).end();
        return;
      }
      jwksRequests++;
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: publicJwks }));
    });
    await listenOnLoopback(server);
    const { port } = server.address() as AddressInfo;
    const jwksUrl = `http://127.0.0.1:${port}/auth/v1/.well-known/jwks.json`;
    jwksContext = await createTestContext({ JWT_JWKS_URL: jwksUrl });
    jwksApp = whoamiApp(jwksContext);
    // A project whose legacy secret is revoked: its JWKS alone.
    jwksOnlyContext = await createTestContext({ JWT_JWKS_URL: jwksUrl, JWT_SECRET: undefined });
  });
  afterAll(async () => {
    await jwksContext?.close();
    await jwksOnlyContext?.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const esToken = (key: CryptoKey, headerKid: string | undefined = kid, options: TokenOptions = {}) =>
    build(options).setProtectedHeader({ alg: "ES256", typ: "JWT", ...(headerKid ? { kid: headerKid } : {}) }).sign(key);

  it("a token signed with the published key answers 200, and the key set is fetched from the server", async () => {
    const sub = randomUUID();
    const response = await whoami(await esToken(signingKey, kid, { sub }), jwksApp);
    expect(response.status).toBe(200);
    const { userId } = await response.json();
    expect(await jwksContext.owner`select id from core.users where auth_user_id = ${sub}`).toEqual([{ id: userId }]);
    expect(jwksRequests).toBeGreaterThan(0);
  });

  it("a token signed with another ES256 key answers 401 invalid_session, under the same kid or another", async () => {
    const { privateKey: otherKey } = await generateKeyPair("ES256");
    await expectErrorBody(await whoami(await esToken(otherKey, kid), jwksApp), 401, "invalid_session");
    await expectErrorBody(await whoami(await esToken(otherKey, "unknown-kid"), jwksApp), 401, "invalid_session");
    await expectErrorBody(await whoami(await esToken(otherKey, undefined), jwksApp), 401, "invalid_session");
  });

  it("an expired token signed with the published key answers 401 invalid_session", async () => {
    await expectErrorBody(await whoami(await esToken(signingKey, kid, { expiresAt: now() - 60 }), jwksApp), 401, "invalid_session");
  });

  it("without a configured JWKS an asymmetric token answers 401 invalid_session", async () => {
    await expectErrorBody(await whoami(await esToken(signingKey)), 401, "invalid_session");
  });

  it("HS256 tokens keep working next to the JWKS", async () => {
    expect((await whoami(await hsToken(), jwksApp)).status).toBe(200);
  });

  it("an RS256 token signed with the published RSA key answers 200; under the ES256 key's kid it answers 401", async () => {
    const rsToken = (headerKid: string) => build({}).setProtectedHeader({ alg: "RS256", typ: "JWT", kid: headerKid }).sign(rsaKey);
    expect((await whoami(await rsToken(rsaKid), jwksApp)).status).toBe(200);
    await expectErrorBody(await whoami(await rsToken(kid), jwksApp), 401, "invalid_session");
  });

  it("a token without a kid answers 401 invalid_session, even signed with a published key", async () => {
    await expectErrorBody(await whoami(await esToken(signingKey, ""), jwksApp), 401, "invalid_session");
  });

  it("with the JWKS alone, HS256 answers 401 invalid_session, even signed with the former secret", async () => {
    const jwksOnlyApp = whoamiApp(jwksOnlyContext);
    expect((await whoami(await esToken(signingKey), jwksOnlyApp)).status).toBe(200);
    await expectErrorBody(await whoami(await hsToken(), jwksOnlyApp), 401, "invalid_session");
  });

  it("a foreign issuer answers 401 invalid_session when JWT_ISSUER is set, whatever key signed it", async () => {
    const issuerContext = await createTestContext({ JWT_JWKS_URL: jwksContext.config.JWT_JWKS_URL, JWT_ISSUER: "https://project.example/auth/v1" });
    try {
      const issuerApp = whoamiApp(issuerContext);
      expect((await whoami(await esToken(signingKey, kid, { issuer: "https://project.example/auth/v1" }), issuerApp)).status).toBe(200);
      await expectErrorBody(await whoami(await esToken(signingKey, kid, { issuer: "https://other.example/auth/v1" }), issuerApp), 401, "invalid_session");
    } finally {
      await issuerContext.close();
    }
  });
});

describe("anonymous sessions", () => {
  it("a valid token of an anonymous sign-in answers 403 anonymous_session and provisions no user", async () => {
    const sub = randomUUID();
    await expectErrorBody(await whoami(await hsToken({ sub, claims: { is_anonymous: true } })), 403, "anonymous_session");
    expect(await t.owner`select id from core.users where auth_user_id = ${sub}`).toEqual([]);
    expect((await whoami(await hsToken({ claims: { is_anonymous: false } }))).status).toBe(200);
  });
});
