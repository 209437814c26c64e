import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { generateApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import { requireApiKey, requirePermission } from "../../supabase/functions/_shared/auth/middleware.ts";
import { scopeOf } from "../../supabase/functions/_shared/auth/principal.ts";
import { createBaseApp } from "../../supabase/functions/_shared/http/app.ts";
import { ApiError } from "../../supabase/functions/_shared/http/errors.ts";
import { linkAddress, revokeApiKey } from "../../scripts/lib/admin-operations.ts";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const PROTECTED = ["/api/auth/get-session", "/api/v3/me", "/api/v3/me/crypto-addresses"];

describe("x-api-key authentication", () => {
  it.each(PROTECTED)("%s without a key answers 401 missing_api_key", async (path) => {
    await expectErrorBody(await t.call(path), 401, "missing_api_key");
  });

  it("a well-formed key that was never issued answers 401 invalid_api_key", async () => {
    const user = await t.userWithKey();
    // The real key's visible prefix with a different secret part: the prefix alone must not authenticate.
    const forged = `${user.keyPrefix}_${randomBytes(32).toString("base64url")}`;
    for (const key of [forged, generateApiKey().plaintext]) {
      await expectErrorBody(await t.call("/api/v3/me", { key }), 401, "invalid_api_key");
    }
    // The genuine key still works, so the 401s above are about the forged keys.
    expect((await t.call("/api/v3/me", { key: user.key })).status).toBe(200);
  });

  it.each([
    ["garbage", "not-an-api-key"],
    ["the prefix alone", "sk_abcdefgh"],
    ["SQL in the key", "sk_abcdefgh_' or 1=1 --aaaaaaaaaaaaaaaaaaaa"],
  ])("a malformed key (%s) answers 401 invalid_api_key", async (_label, key) => {
    await expectErrorBody(await t.call("/api/v3/me", { key }), 401, "invalid_api_key");
  });

  it("a revoked key answers 401 on the very next request", async () => {
    const user = await t.userWithKey();
    expect((await t.call("/api/v3/me", { key: user.key })).status).toBe(200);
    const revoked = await revokeApiKey(t.adminDb, user.keyId);
    expect(revoked?.revokedAt).not.toBeNull();
    await expectErrorBody(await t.call("/api/v3/me", { key: user.key }), 401, "invalid_api_key");
    await expectErrorBody(await t.call("/api/auth/get-session", { key: user.key }), 401, "invalid_api_key");
  });

  it("revoking one key leaves the owner's other keys working", async () => {
    const user = await t.userWithKey();
    const other = await t.userWithKey();
    await revokeApiKey(t.adminDb, other.keyPrefix);
    await expectErrorBody(await t.call("/api/v3/me", { key: other.key }), 401, "invalid_api_key");
    expect((await t.call("/api/v3/me", { key: user.key })).status).toBe(200);
  });

  it("Authorization: Bearer with a valid API key is refused with 401 wrong_auth_scheme naming x-api-key", async () => {
    const user = await t.userWithKey();
    for (const path of PROTECTED) {
      const response = await t.call(path, { headers: { authorization: `Bearer ${user.key}` } });
      const body = await expectErrorBody(response, 401, "wrong_auth_scheme");
      expect(body.message).toContain("x-api-key");
    }
  });
});

describe("a key sees only its owner's data", () => {
  it("get-session and /me answer for the key's owner only", async () => {
    const a = await t.userWithKey([], { email: "a@example.com", username: "user_a" });
    const b = await t.userWithKey([], { email: "b@example.com", username: "user_b" });

    const sessionA = await (await t.call("/api/auth/get-session", { key: a.key })).json();
    const sessionB = await (await t.call("/api/auth/get-session", { key: b.key })).json();
    expect(sessionA).toEqual({ user: { id: a.id } });
    expect(sessionB).toEqual({ user: { id: b.id } });
    expect(sessionA.user.id).not.toBe(sessionB.user.id);

    const meA = await (await t.call("/api/v3/me", { key: a.key })).json();
    expect(meA).toMatchObject({ id: a.id, email: "a@example.com", username: "user_a" });
    const meB = await (await t.call("/api/v3/me", { key: b.key })).json();
    expect(meB).toMatchObject({ id: b.id, email: "b@example.com", username: "user_b" });
  });

  it("/me/crypto-addresses lists only the caller's addresses", async () => {
    const a = await t.userWithKey();
    const b = await t.userWithKey();
    const addressA = "0x1111111111111111111111111111111111111111";
    const addressB = "0x2222222222222222222222222222222222222222";
    await linkAddress(t.adminDb, { userId: a.id, address: addressA, chainId: "1", connector: "operator" });
    await linkAddress(t.adminDb, { userId: b.id, address: addressB, chainId: "1", connector: "operator" });

    const listA = await (await t.call("/api/v3/me/crypto-addresses", { key: a.key })).json();
    expect(listA.items.map((i: { address: string }) => i.address)).toEqual([addressA]);

    // B's address exists and is visible to B: A's list lacks it because of who asks.
    const listB = await (await t.call("/api/v3/me/crypto-addresses", { key: b.key })).json();
    expect(listB.items.map((i: { address: string }) => i.address)).toEqual([addressB]);
  });

});

describe("API-key permissions", () => {
  // No route of this issue needs a permission yet, so the middleware is mounted on the real base app.
  const guarded = () => {
    const app = createBaseApp({ config: t.config, db: t.db });
    app.post("/guarded", requireApiKey, requirePermission("checkout:create"), (c) => c.json({ ok: true }));
    return app;
  };

  it("a key with checkout:create passes; one with other permissions gets 403 missing_permission", async () => {
    const allowed = await t.userWithKey(["checkout:create"]);
    const other = await t.userWithKey(["checkout:retry", "sponsorship:write"]);
    const app = guarded();
    expect((await app.request("/guarded", { method: "POST", headers: { "x-api-key": allowed.key } })).status).toBe(200);
    const body = await expectErrorBody(
      await app.request("/guarded", { method: "POST", headers: { "x-api-key": other.key } }), 403, "missing_permission");
    expect(body.details).toEqual({ required: "checkout:create" });
  });

  it("a key without the permission gets 403 before the handler runs; an unknown key 401", async () => {
    const allowed = await t.userWithKey(["checkout:create"]);
    const other = await t.userWithKey(["checkout:retry"]);
    let ran = 0;
    const app = createBaseApp({ config: t.config, db: t.db });
    app.post("/guarded-effect", requireApiKey, requirePermission("checkout:create"), (c) => {
      ran += 1; // stands for a side effect outside the database (a payment provider, an email)
      return c.json({ ok: true });
    });
    const post = (key: string) => app.request("/guarded-effect", { method: "POST", headers: { "x-api-key": key } });

    await expectErrorBody(await post(other.key), 403, "missing_permission");
    await expectErrorBody(await post(generateApiKey().plaintext), 401, "invalid_api_key");
    expect(ran).toBe(0);
    // The handler does run for a key that has the permission, so the count above can fail.
    expect((await post(allowed.key)).status).toBe(200);
    expect(ran).toBe(1);
  });
});

describe("a key is checked even when the handler never reaches the database", () => {
  // requireApiKey only hashes the key; the database checks it in the request's transactions, and
  // the middleware checks it after a handler that had none.
  const app = () => {
    const base = createBaseApp({ config: t.config, db: t.db });
    base.get("/no-db", requireApiKey, (c) => c.json({ ok: true }));
    base.post("/refuses", requireApiKey, () => {
      throw new ApiError(400, "handler_refused", "The handler refuses every request.");
    });
    base.post("/crashes", requireApiKey, () => {
      throw new Error("a bug in the handler");
    });
    // Reaches the database, whose statement fails: the key's check is the cause to report.
    base.post("/bad-statement", requireApiKey, async (c) => {
      await c.get("db").transaction(scopeOf(c.get("principal")), (tx) => tx`select 'not a number'::integer`);
      return c.json({ ok: true });
    });
    return base;
  };

  it("a never-issued or revoked key answers 401 invalid_api_key; a valid key 200", async () => {
    const user = await t.userWithKey();
    const revoked = await t.userWithKey();
    await revokeApiKey(t.adminDb, revoked.keyId);
    const a = app();
    const forged = `${user.keyPrefix}_${randomBytes(32).toString("base64url")}`;
    for (const key of [generateApiKey().plaintext, forged, revoked.key]) {
      await expectErrorBody(await a.request("/no-db", { headers: { "x-api-key": key } }), 401, "invalid_api_key");
    }
    const response = await a.request("/no-db", { headers: { "x-api-key": user.key } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it("a valid key gets the handler's own error; an unknown or revoked key gets 401 on the same route", async () => {
    const user = await t.userWithKey();
    const revoked = await t.userWithKey();
    await revokeApiKey(t.adminDb, revoked.keyId);
    const a = app();
    const post = (path: string, key: string) => a.request(path, { method: "POST", headers: { "x-api-key": key } });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      await expectErrorBody(await post("/refuses", user.key), 400, "handler_refused");
      await expectErrorBody(await post("/crashes", user.key), 500, "internal_error");
      await expectErrorBody(await post("/bad-statement", user.key), 400, "validation_failed");
      for (const key of [generateApiKey().plaintext, revoked.key]) {
        for (const path of ["/refuses", "/crashes", "/bad-statement"]) {
          logged.mockClear();
          await expectErrorBody(await post(path, key), 401, "invalid_api_key");
          // The transaction reports the key's refusal, not the aborted statement after it as a 500.
          if (path === "/bad-statement") expect(logged).not.toHaveBeenCalled();
        }
      }
    } finally {
      logged.mockRestore();
    }
  });

  it("a single-statement route reports an unknown key as 401 from its own statement, never a logged failure", async () => {
    // The key check and the statement it aborts fail in the same read; the check must be the cause.
    // Each key is marked as accepted lately (as a key revoked a moment ago is), so it skips the
    // up-front check and reaches the statement.
    const a = createBaseApp({ config: t.config, db: t.db });
    let refusals = 0;
    a.get("/statement", requireApiKey, async (c) => {
      try {
        await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx`select 1`);
      } catch (error) {
        if (error instanceof ApiError && error.code === "invalid_api_key") refusals++;
        throw error;
      }
      return c.json({ ok: true });
    });
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      for (let i = 0; i < 20; i++) {
        const key = generateApiKey();
        t.db.acceptedKeys.accept(key.hash, "65f000000000000000000001", []);
        await expectErrorBody(await a.request("/statement", { headers: { "x-api-key": key.plaintext } }), 401, "invalid_api_key");
        expect(t.db.acceptedKeys.ownerOf(key.hash)).toBeUndefined();
      }
      expect(refusals).toBe(20);
      expect(logged).not.toHaveBeenCalled();
    } finally {
      logged.mockRestore();
    }
  });

  it("a real route's failed validation answers 401 for an unknown key, 400 for a valid one", async () => {
    // The venue route's query validation runs after requireApiKey and before the handler.
    const user = await t.userWithKey();
    await expectErrorBody(await t.call("/api/v3/adresses/autocomplete?q=B", { key: user.key }), 400, "query_too_short");
    await expectErrorBody(
      await t.call("/api/v3/adresses/autocomplete?q=B", { key: generateApiKey().plaintext }), 401, "invalid_api_key");
  });
});
