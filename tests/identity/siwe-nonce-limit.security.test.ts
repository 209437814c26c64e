// A user holds at most 10 live SIWE nonces (core.issue_siwe_nonce); more answer 429 rate_limited
// with Retry-After, however many requests race.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";
import { issueNonce, link, newWallet, siweMessage } from "./siwe-fixtures.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const LIMIT = 10;
const TEN_MINUTES = 600;

const requestNonce = (key: string) => t.call("/api/v3/me/crypto-addresses/nonce", { method: "POST", key });

async function storedNonces(userId: string): Promise<number> {
  const [row] = await t.owner<{ count: number }[]>`select count(*)::int as count from core.siwe_nonces where user_id = ${userId}`;
  return row!.count;
}

describe("live nonces per user", () => {
  it("the eleventh live nonce answers 429 rate_limited with Retry-After until the oldest expires", async () => {
    const user = await t.userWithKey();
    for (let i = 0; i < LIMIT; i++) await issueNonce(t, user.key);

    const refused = await requestNonce(user.key);
    const body = await expectErrorBody(refused, 429, "rate_limited");
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(TEN_MINUTES - 30);
    expect(retryAfter).toBeLessThanOrEqual(TEN_MINUTES);
    expect(body.details).toEqual({ retryAfterSeconds: retryAfter, limit: LIMIT });
    expect(await storedNonces(user.id)).toBe(LIMIT);
  });

  it("Retry-After is the time left to the oldest live nonce", async () => {
    const user = await t.userWithKey();
    for (let i = 0; i < LIMIT; i++) await issueNonce(t, user.key);
    await t.owner`
      update core.siwe_nonces set expires_at = now() + interval '42 seconds'
      where nonce = (select nonce from core.siwe_nonces where user_id = ${user.id} order by created_at limit 1)`;
    const refused = await requestNonce(user.key);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(41);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(42);
  });

  it("100 concurrent requests of one user get exactly 10 nonces", async () => {
    const user = await t.userWithKey();
    const responses = await Promise.all(Array.from({ length: 100 }, () => requestNonce(user.key)));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(LIMIT);
    expect(statuses.filter((s) => s === 429)).toHaveLength(100 - LIMIT);
    expect(await storedNonces(user.id)).toBe(LIMIT);
  });

  it("a user at the limit does not affect another user", async () => {
    const full = await t.userWithKey();
    const other = await t.userWithKey();
    for (let i = 0; i < LIMIT; i++) await issueNonce(t, full.key);
    expect((await requestNonce(full.key)).status).toBe(429);
    expect((await requestNonce(other.key)).status).toBe(201);
  });

  it("spending a nonce frees its place; an expired one frees its place too", async () => {
    const user = await t.userWithKey();
    const nonces = [];
    for (let i = 0; i < LIMIT; i++) nonces.push(await issueNonce(t, user.key));
    expect((await requestNonce(user.key)).status).toBe(429);

    const wallet = newWallet();
    const message = siweMessage(wallet, nonces[0]!);
    expect((await link(t, user.key, { message, signature: await wallet.signMessage({ message }) })).status).toBe(201);
    expect((await requestNonce(user.key)).status).toBe(201);
    expect((await requestNonce(user.key)).status).toBe(429);

    await t.owner`update core.siwe_nonces set expires_at = now() - interval '1 second' where nonce = ${nonces[1]!}`;
    expect((await requestNonce(user.key)).status).toBe(201);
    expect(await storedNonces(user.id)).toBe(LIMIT); // the expired one was deleted, not kept beside
  });
});
