import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkAddress } from "../../scripts/lib/admin-operations.ts";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";
import { CHAIN_ID, issueNonce, link, listAddresses, newWallet, siweMessage } from "./siwe-fixtures.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

async function nonceRows(nonce: string): Promise<number> {
  const rows = await t.owner`select 1 from core.siwe_nonces where nonce = ${nonce}`;
  return rows.length;
}

describe("SIWE nonces", () => {
  it("a nonce is spent by its first use: reusing it answers 400 siwe_nonce_invalid", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const nonce = await issueNonce(t, user.key);
    const message = siweMessage(wallet, nonce);
    const signature = await wallet.signMessage({ message });
    expect((await link(t, user.key, { message, signature })).status).toBe(201);
    expect(await nonceRows(nonce)).toBe(0);

    // The same signed message replayed.
    await expectErrorBody(await link(t, user.key, { message, signature }), 400, "siwe_nonce_invalid");
    // The same nonce in a fresh message for another wallet (so no address conflict can be the cause).
    const other = newWallet();
    const otherMessage = siweMessage(other, nonce);
    await expectErrorBody(
      await link(t, user.key, { message: otherMessage, signature: await other.signMessage({ message: otherMessage }) }),
      400,
      "siwe_nonce_invalid",
    );
    expect((await listAddresses(t, user.key)).map((i) => i.address)).toEqual([wallet.address]);
  });

  it("a nonce issued to another user answers 400 siwe_nonce_invalid and stays usable by its owner", async () => {
    const a = await t.userWithKey();
    const b = await t.userWithKey();
    const nonceOfA = await issueNonce(t, a.key);

    const walletB = newWallet();
    const messageB = siweMessage(walletB, nonceOfA);
    const response = await link(t, b.key, { message: messageB, signature: await walletB.signMessage({ message: messageB }) });
    await expectErrorBody(response, 400, "siwe_nonce_invalid");
    expect(await listAddresses(t, b.key)).toEqual([]);

    const walletA = newWallet();
    const messageA = siweMessage(walletA, nonceOfA);
    expect((await link(t, a.key, { message: messageA, signature: await walletA.signMessage({ message: messageA }) })).status).toBe(201);
  });

  it("a nonce the service never issued answers 400 siwe_nonce_invalid", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const message = siweMessage(wallet, "neverissued12345");
    await expectErrorBody(await link(t, user.key, { message, signature: await wallet.signMessage({ message }) }), 400, "siwe_nonce_invalid");
  });

  it("an expired nonce answers 400 siwe_nonce_invalid", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const nonce = await issueNonce(t, user.key);
    await t.owner`update core.siwe_nonces set expires_at = now() - interval '1 second' where nonce = ${nonce}`;
    const message = siweMessage(wallet, nonce);
    await expectErrorBody(await link(t, user.key, { message, signature: await wallet.signMessage({ message }) }), 400, "siwe_nonce_invalid");
  });
});

// Times, chain ids, URIs and the layout of the text: siwe-messages.security.test.ts.
describe("SIWE message checks", () => {
  async function signedWith(overrides: Parameters<typeof siweMessage>[2]) {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const nonce = await issueNonce(t, user.key);
    const message = siweMessage(wallet, nonce, overrides);
    const response = await link(t, user.key, { message, signature: await wallet.signMessage({ message }) });
    return { user, nonce, response };
  }

  it("a domain the service does not accept answers 400 siwe_message_invalid", async () => {
    const { user, nonce, response } = await signedWith({ domain: "evil.example", uri: "https://evil.example/login" });
    const body = await expectErrorBody(response, 400, "siwe_message_invalid");
    expect(body.message).toContain("localhost:54321");
    expect(await listAddresses(t, user.key)).toEqual([]);
    expect(await nonceRows(nonce)).toBe(1); // refused before the nonce was spent
  });

  it("a configured host on another port is another domain", async () => {
    const { response } = await signedWith({ domain: "localhost:3000", uri: "http://localhost:3000/login" });
    await expectErrorBody(response, 400, "siwe_message_invalid");
  });

  it("text that is not a SIWE message answers 400 siwe_message_invalid", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const message = "please link my wallet";
    await expectErrorBody(await link(t, user.key, { message, signature: await wallet.signMessage({ message }) }), 400, "siwe_message_invalid");
  });
});

describe("SIWE signatures", () => {
  it("a signature by another key answers 400 siwe_signature_invalid and does not spend the nonce", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const impostor = newWallet();
    const nonce = await issueNonce(t, user.key);
    const message = siweMessage(wallet, nonce);

    const forged = await link(t, user.key, { message, signature: await impostor.signMessage({ message }) });
    await expectErrorBody(forged, 400, "siwe_signature_invalid");
    expect(await listAddresses(t, user.key)).toEqual([]);

    // The handler verifies the signature before it spends the nonce, so the wallet can still use it.
    expect(await nonceRows(nonce)).toBe(1);
    const genuine = await link(t, user.key, { message, signature: await wallet.signMessage({ message }) });
    expect(genuine.status).toBe(201);
    expect((await genuine.json()).address).toBe(wallet.address);
  });

  it("a signature over a different message answers 400 siwe_signature_invalid", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const nonce = await issueNonce(t, user.key);
    const signed = siweMessage(wallet, nonce, { chainId: 1 });
    const sent = siweMessage(wallet, nonce, { chainId: 8453 });
    const response = await link(t, user.key, { message: sent, signature: await wallet.signMessage({ message: signed }) });
    await expectErrorBody(response, 400, "siwe_signature_invalid");
  });

  it.each([
    ["too short", "0x1234"],
    ["not hex", `0x${"zz".repeat(65)}`],
    ["without 0x", "ab".repeat(65)],
  ])("a malformed signature (%s) answers 400 validation_failed", async (_label, signature) => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const nonce = await issueNonce(t, user.key);
    const message = siweMessage(wallet, nonce);
    await expectErrorBody(await link(t, user.key, { message, signature }), 400, "validation_failed");
    expect(await nonceRows(nonce)).toBe(1);
  });

  it("a well-formed signature that recovers no key answers 400 siwe_signature_invalid", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const message = siweMessage(wallet, await issueNonce(t, user.key));
    await expectErrorBody(await link(t, user.key, { message, signature: `0x${"00".repeat(65)}` }), 400, "siwe_signature_invalid");
  });
});

describe("one owner per address and chain", () => {
  it("a second user linking the same address on the same chain answers 409 address_already_linked", async () => {
    const a = await t.userWithKey();
    const b = await t.userWithKey();
    const wallet = newWallet();

    const messageA = siweMessage(wallet, await issueNonce(t, a.key));
    expect((await link(t, a.key, { message: messageA, signature: await wallet.signMessage({ message: messageA }) })).status).toBe(201);

    const nonceB = await issueNonce(t, b.key);
    // Lower case in the message: the uniqueness is case-insensitive for EVM addresses.
    const messageB = siweMessage(wallet, nonceB).replace(wallet.address, wallet.address.toLowerCase());
    const response = await link(t, b.key, { message: messageB, signature: await wallet.signMessage({ message: messageB }) });
    await expectErrorBody(response, 409, "address_already_linked");

    expect(await listAddresses(t, b.key)).toEqual([]);
    expect((await listAddresses(t, a.key)).map((i) => i.address)).toEqual([wallet.address]);
    // The failed link rolled back as a whole, nonce included.
    expect(await nonceRows(nonceB)).toBe(1);
  });

  it("linking an address its owner already linked on that chain is also 409", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const first = siweMessage(wallet, await issueNonce(t, user.key));
    expect((await link(t, user.key, { message: first, signature: await wallet.signMessage({ message: first }) })).status).toBe(201);
    const second = siweMessage(wallet, await issueNonce(t, user.key));
    await expectErrorBody(
      await link(t, user.key, { message: second, signature: await wallet.signMessage({ message: second }) }),
      409,
      "address_already_linked",
    );
    expect(await listAddresses(t, user.key)).toHaveLength(1);
  });
});

describe("unlinking", () => {
  it("user A cannot delete user B's address: 404, and B still has it", async () => {
    const a = await t.userWithKey();
    const b = await t.userWithKey();
    const address = newWallet().address;
    await linkAddress(t.adminDb, { userId: b.id, address, chainId: String(CHAIN_ID), connector: "metamask" });

    const response = await t.call(`/api/v3/me/crypto-addresses/${address}?chainId=${CHAIN_ID}`, { method: "DELETE", key: a.key });
    await expectErrorBody(response, 404, "not_found");
    expect((await listAddresses(t, b.key)).map((i) => i.address)).toEqual([address]);

    // The same request by the owner succeeds, so A's 404 is about who asked.
    const own = await t.call(`/api/v3/me/crypto-addresses/${address}?chainId=${CHAIN_ID}`, { method: "DELETE", key: b.key });
    expect(own.status).toBe(204);
  });

  it("deleting on another chain than the one linked answers 404 and keeps the address", async () => {
    const user = await t.userWithKey();
    const address = newWallet().address;
    await linkAddress(t.adminDb, { userId: user.id, address, chainId: "1", connector: "metamask" });
    const response = await t.call(`/api/v3/me/crypto-addresses/${address}?chainId=10`, { method: "DELETE", key: user.key });
    await expectErrorBody(response, 404, "not_found");
    expect(await listAddresses(t, user.key)).toHaveLength(1);
  });

  it("a missing or malformed chainId answers 400 validation_failed", async () => {
    const user = await t.userWithKey();
    const address = newWallet().address;
    await expectErrorBody(await t.call(`/api/v3/me/crypto-addresses/${address}`, { method: "DELETE", key: user.key }), 400, "validation_failed");
    await expectErrorBody(
      await t.call(`/api/v3/me/crypto-addresses/${address}?chainId=1%27%20or%201%3D1`, { method: "DELETE", key: user.key }),
      400,
      "validation_failed",
    );
  });
});

// PostgreSQL rejects NUL bytes in text (SQLSTATE 22021); that is the caller's bad input, never a 500.
describe("NUL bytes in text inputs", () => {
  it("a connector with a NUL byte answers 400 validation_failed", async () => {
    const user = await t.userWithKey();
    const wallet = newWallet();
    const message = siweMessage(wallet, await issueNonce(t, user.key));
    const response = await link(t, user.key, { message, signature: await wallet.signMessage({ message }), connector: "meta\u0000mask" });
    await expectErrorBody(response, 400, "validation_failed");
  });

  it("an address with a NUL byte in the DELETE path answers a 4xx", async () => {
    const user = await t.userWithKey();
    const response = await t.call(`/api/v3/me/crypto-addresses/0xab%00cd?chainId=${CHAIN_ID}`, { method: "DELETE", key: user.key });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});

describe("the link request refuses fields it does not know", () => {
  it("like every other body: 400 validation_failed naming the field", async () => {
    const user = await t.userWithKey();
    const response = await t.call("/api/v3/me/crypto-addresses", {
      method: "POST", key: user.key,
      json: { message: "x", signature: `0x${"00".repeat(65)}`, connector: "metamask", chainId: 1 },
    });
    const body = await expectErrorBody(response, 400, "validation_failed");
    expect(JSON.stringify(body.details.issues)).toContain("chainId");
  });
});
