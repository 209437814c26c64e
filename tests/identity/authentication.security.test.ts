import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import { requireApiKey, requirePermission } from "../../supabase/functions/_shared/auth/middleware.ts";
import { createBaseApp } from "../../supabase/functions/_shared/http/app.ts";
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
    const revoked = await revokeApiKey(t.db, user.keyId);
    expect(revoked?.revokedAt).not.toBeNull();
    await expectErrorBody(await t.call("/api/v3/me", { key: user.key }), 401, "invalid_api_key");
    await expectErrorBody(await t.call("/api/auth/get-session", { key: user.key }), 401, "invalid_api_key");
  });

  it("revoking one key leaves the owner's other keys working", async () => {
    const user = await t.userWithKey();
    const other = await t.userWithKey();
    await revokeApiKey(t.db, other.keyPrefix);
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
    await linkAddress(t.db, { userId: a.id, address: addressA, chainId: "1", connector: "operator" });
    await linkAddress(t.db, { userId: b.id, address: addressB, chainId: "1", connector: "operator" });

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
    app.post("/guarded", requireApiKey, requirePermission("checkout", "create"), (c) => c.json({ ok: true }));
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
});
