import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe("identity", () => {
  it("get-session returns the key owner's id", async () => {
    const user = await t.userWithKey();
    const response = await t.call("/api/auth/get-session", { key: user.key });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ user: { id: user.id } });
    expect(user.id).toMatch(/^[0-9a-f]{24}$/);
  });

  it("/me returns the owner's profile", async () => {
    const user = await t.userWithKey([], { email: "ana@example.com", username: "ana_events" });
    const response = await t.call("/api/v3/me", { key: user.key });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ id: user.id, email: "ana@example.com", username: "ana_events", displayName: null });
    expect(Date.parse(body.createdAt)).not.toBeNaN();
  });

  it("records a key's last use, at most once a minute", async () => {
    const user = await t.userWithKey();
    const lastUsed = async () =>
      (await t.owner<{ last_used_at: Date | null }[]>`select last_used_at from core.api_keys where id = ${user.keyId}`)[0]!.last_used_at;
    expect(await lastUsed()).toBeNull();
    await t.call("/api/v3/me", { key: user.key });
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await t.call("/api/v3/me", { key: user.key });
    expect(await lastUsed()).toEqual(first);
    await t.owner`update core.api_keys set last_used_at = now() - interval '2 minutes' where id = ${user.keyId}`;
    await t.call("/api/v3/me", { key: user.key });
    expect((await lastUsed())!.getTime()).toBeGreaterThan(first!.getTime());
  });
});
