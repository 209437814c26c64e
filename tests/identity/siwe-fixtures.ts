// SIWE (EIP-4361) helpers for the crypto-address suites: real wallets, real messages, real signatures.
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage, type SiweMessage } from "viem/siwe";
import type { TestContext } from "../setup/test-context.ts";

export const SIWE_DOMAIN = "localhost:54321";
export const CHAIN_ID = 8453;

export function newWallet(): PrivateKeyAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** POST /nonce as the key's owner; fails loudly if the service does not issue one. */
export async function issueNonce(t: TestContext, key: string): Promise<string> {
  const response = await t.call("/api/v3/me/crypto-addresses/nonce", { method: "POST", key });
  if (response.status !== 201) throw new Error(`nonce: expected 201, got ${response.status} ${await response.text()}`);
  return ((await response.json()) as { nonce: string }).nonce;
}

export function siweMessage(wallet: PrivateKeyAccount, nonce: string, overrides: Partial<SiweMessage> = {}): string {
  return createSiweMessage({
    domain: SIWE_DOMAIN,
    address: wallet.address,
    statement: "Link this wallet to my account.",
    uri: `http://${SIWE_DOMAIN}/link`,
    version: "1",
    chainId: CHAIN_ID,
    nonce,
    issuedAt: new Date(),
    ...overrides,
  });
}

export function link(t: TestContext, key: string, body: { message: string; signature: string; connector?: string }) {
  return t.call("/api/v3/me/crypto-addresses", {
    method: "POST",
    key,
    json: { message: body.message, signature: body.signature, connector: body.connector ?? "metamask" },
  });
}

/** Nonce, message signed by `wallet`, link: the whole happy flow for `key`'s owner. */
export async function signAndLink(
  t: TestContext,
  key: string,
  wallet: PrivateKeyAccount,
  overrides: Partial<SiweMessage> = {},
  connector = "metamask",
) {
  const nonce = await issueNonce(t, key);
  const message = siweMessage(wallet, nonce, overrides);
  const signature = await wallet.signMessage({ message });
  return link(t, key, { message, signature, connector });
}

export async function listAddresses(t: TestContext, key: string) {
  const response = await t.call("/api/v3/me/crypto-addresses", { key });
  if (response.status !== 200) throw new Error(`list: expected 200, got ${response.status} ${await response.text()}`);
  return ((await response.json()) as { items: Array<{ address: string; chainId: number | string; connector: string; createdAt: string }> }).items;
}
