// Linking a Sui account the way an Ethereum wallet is linked: the same nonce, the same message with
// `Sui account:` (CAIP-122), a real Ed25519 personal-message signature checked by @mysten/sui's verifier.
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Secp256k1Keypair } from "@mysten/sui/keypairs/secp256k1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { issueNonce, link, listAddresses, SIWE_DOMAIN } from "./siwe-fixtures.ts";

let t: TestContext;
let user: UserWithKey;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey();
});
afterAll(() => t.close());

type SuiSigner = Ed25519Keypair | Secp256k1Keypair;

function suiMessage(address: string, nonce: string, chainId = "sui:testnet", account = "Sui"): string {
  return [
    `${SIWE_DOMAIN} wants you to sign in with your ${account} account:`,
    address,
    "",
    "Link this Sui account to my account.",
    "",
    `URI: http://${SIWE_DOMAIN}/link`,
    "Version: 1",
    `Chain ID: ${chainId}`,
    `Nonce: ${nonce}`,
    `Issued At: ${new Date().toISOString()}`,
  ].join("\n");
}

async function signed(signer: SuiSigner, message: string) {
  return (await signer.signPersonalMessage(new TextEncoder().encode(message))).signature;
}

async function linkSui(key: string, signer: SuiSigner, options: { chainId?: string; signWith?: SuiSigner; address?: string } = {}) {
  const message = suiMessage(options.address ?? signer.toSuiAddress(), await issueNonce(t, key), options.chainId);
  return link(t, key, { message, signature: await signed(options.signWith ?? signer, message), connector: "sui-wallet" });
}

describe("linking a Sui account", () => {
  it("links an Ed25519 and a Secp256k1 account on their networks, listed with their CAIP-2 chain", async () => {
    const ed = new Ed25519Keypair();
    const secp = new Secp256k1Keypair();
    const first = await linkSui(user.key, ed);
    expect(first.status, await first.clone().text()).toBe(201);
    expect(await first.json()).toMatchObject({ address: ed.toSuiAddress(), chainId: "sui:testnet", connector: "sui-wallet" });
    expect((await linkSui(user.key, secp, { chainId: "sui:mainnet" })).status).toBe(201);
    const listed = await listAddresses(t, user.key);
    expect(listed.map((a) => [a.address, a.chainId])).toEqual(expect.arrayContaining([
      [ed.toSuiAddress(), "sui:testnet"], [secp.toSuiAddress(), "sui:mainnet"],
    ]));
  });

  it("refuses a signature by another key than the message's address", async () => {
    const owner = new Ed25519Keypair();
    await expectErrorBody(await linkSui(user.key, owner, { signWith: new Ed25519Keypair() }), 400, "siwe_signature_invalid");
  });

  it("refuses a chain that is not a Sui network, and a Sui address in an Ethereum message", async () => {
    const signer = new Ed25519Keypair();
    await expectErrorBody(await linkSui(user.key, signer, { chainId: "8453" }), 400, "siwe_chain_id_invalid");
    await expectErrorBody(await linkSui(user.key, signer, { chainId: "sui:moon" }), 400, "siwe_chain_id_invalid");
    const message = suiMessage(signer.toSuiAddress(), await issueNonce(t, user.key), "sui:testnet", "Ethereum");
    await expectErrorBody(await link(t, user.key, { message, signature: await signed(signer, message) }), 400, "siwe_message_invalid");
  });

  it("spends the nonce: the same signed message links once", async () => {
    const signer = new Ed25519Keypair();
    const message = suiMessage(signer.toSuiAddress(), await issueNonce(t, user.key));
    const body = { message, signature: await signed(signer, message), connector: "sui-wallet" };
    expect((await link(t, user.key, body)).status).toBe(201);
    await expectErrorBody(await link(t, user.key, body), 400, "siwe_nonce_invalid");
  });

  it("links an account to one user only", async () => {
    const signer = new Ed25519Keypair();
    expect((await linkSui(user.key, signer)).status).toBe(201);
    const other = await t.userWithKey();
    await expectErrorBody(await linkSui(other.key, signer), 409, "address_already_linked");
  });
});
