import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";
import { CHAIN_ID, issueNonce, link, listAddresses, newWallet, signAndLink, siweMessage } from "./siwe-fixtures.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

describe("linking a wallet with SIWE", () => {
  it("issues a nonce with its expiry and the accepted domains", async () => {
    const user = await t.userWithKey();
    const before = Date.now();
    const response = await t.call("/api/v3/me/crypto-addresses/nonce", { method: "POST", key: user.key });
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body.nonce).toMatch(/^[A-Za-z0-9]{8,}$/);
    expect(body.domains).toEqual(["localhost:54321", "127.0.0.1:54321"]);
    const ttl = Date.parse(body.expiresAt) - before;
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 5_000);
    // Two requests never get the same nonce.
    expect(await issueNonce(t, user.key)).not.toBe(body.nonce);
  });

  it("links, lists, unlinks, and a second unlink is 404", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();

    const nonce = await issueNonce(t, user.key);
    const message = siweMessage(wallet, nonce);
    const signature = await wallet.signMessage({ message });
    const created = await link(t, user.key, { message, signature, connector: "metamask" });
    expect(created.status).toBe(201);
    const item = await created.json();
    expect(item).toMatchObject({ address: wallet.address, chainId: CHAIN_ID, connector: "metamask" });
    expect(typeof item.chainId).toBe("number");
    expect(Date.parse(item.createdAt)).not.toBeNaN();

    expect(await listAddresses(t, user.key)).toEqual([item]);

    const removed = await t.call(`/api/v3/me/crypto-addresses/${wallet.address}?chainId=${CHAIN_ID}`, { method: "DELETE", key: user.key });
    expect(removed.status).toBe(204);
    expect(await removed.text()).toBe("");
    expect(await listAddresses(t, user.key)).toEqual([]);

    const again = await t.call(`/api/v3/me/crypto-addresses/${wallet.address}?chainId=${CHAIN_ID}`, { method: "DELETE", key: user.key });
    await expectErrorBody(again, 404, "not_found");
  });

  it("stores the address checksummed even when the message carries it in lower case", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const nonce = await issueNonce(t, user.key);
    const message = siweMessage(wallet, nonce).replace(wallet.address, wallet.address.toLowerCase());
    expect(message).toContain(wallet.address.toLowerCase());
    const signature = await wallet.signMessage({ message });
    const response = await link(t, user.key, { message, signature });
    expect(response.status).toBe(201);
    expect((await response.json()).address).toBe(wallet.address);
  });

  it("unlinks by address case-insensitively and only on the named chain", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    expect((await signAndLink(t, user.key, wallet, { chainId: 1 })).status).toBe(201);
    expect((await signAndLink(t, user.key, wallet, { chainId: 10 }, "walletconnect")).status).toBe(201);
    expect((await listAddresses(t, user.key)).map((i) => i.chainId)).toEqual([1, 10]);

    const removed = await t.call(`/api/v3/me/crypto-addresses/${wallet.address.toLowerCase()}?chainId=1`, { method: "DELETE", key: user.key });
    expect(removed.status).toBe(204);
    expect(await listAddresses(t, user.key)).toEqual([
      expect.objectContaining({ address: wallet.address, chainId: 10, connector: "walletconnect" }),
    ]);
  });

  it("accepts every configured domain", async () => {
    const user = await t.userWithKey();
    const response = await signAndLink(t, user.key, newWallet(), { domain: "127.0.0.1:54321", uri: "http://127.0.0.1:54321/link" });
    expect(response.status).toBe(201);
  });

  it("accepts a message inside its notBefore/expirationTime window", async () => {
    const user = await t.userWithKey();
    const now = Date.now();
    const response = await signAndLink(t, user.key, newWallet(), {
      notBefore: new Date(now - 60_000),
      expirationTime: new Date(now + 60_000),
    });
    expect(response.status).toBe(201);
  });
});
