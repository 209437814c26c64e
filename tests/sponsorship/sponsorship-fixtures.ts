// A test file's sponsorship world: its own database and anvil, the app configured with a vault and
// a provider verifier secret, and helpers for sponsors, actors (with app session tokens) and the
// provider's calls, all through the REST API.
import { SignJWT } from "jose";
import { encodeFunctionData, getAddress, type Hex, type LocalAccount, parseAbi, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { linkAddress } from "../../scripts/lib/admin-operations.ts";
import { deployTestToken } from "../../scripts/lib/contracts.ts";
import { VERIFIER_SECRET_HEADER } from "../../supabase/functions/_shared/sponsorship/verifier-secret.ts";
import { startChain } from "../chain/chain-fixtures.ts";
import { createTestContext, TEST_JWT_SECRET, type UserWithKey } from "../setup/test-context.ts";

export const VERIFIER_SECRET = "verifier-secret-0123456789-0123456789-abcdef";
export const CLIENT_ID = "thirdweb-client-1";
/** The chain's sponsorship vault: an address nobody controls in these tests. */
export const VAULT: Hex = getAddress("0x0000000000000000000000000000000000000a17");

const tokenAbi = parseAbi(["function mint(address to, uint256 amount)"]);

export type SponsorshipWorld = Awaited<ReturnType<typeof startSponsorshipWorld>>;

export async function startSponsorshipWorld(env: Record<string, string> = {}) {
  const chain = await startChain();
  const { anvil } = chain;
  const t = await createTestContext({
    EVM_CHAINS: JSON.stringify([{ chainId: anvil.chainId, rpcUrl: anvil.rpcUrl, confirmations: 1, sponsorshipVault: VAULT }]),
    SPONSORSHIP_VERIFIER_SECRETS: VERIFIER_SECRET,
    ...env,
  });
  // The sponsored call of these tests: anyone may mint the test token (a stand-in for a check-in).
  const target = await deployTestToken(chain.wallet(anvil.accounts[0]!), { name: "Check-in", symbol: "CHK", decimals: 0 });

  /** A fresh funded account (100 ETH): a wallet is linked to one user only, and anvil has ten. */
  async function newAccount(): Promise<LocalAccount> {
    const account = privateKeyToAccount(generatePrivateKey());
    await chain.testClient.setBalance({ address: account.address, value: parseEther("100") });
    return account;
  }

  /** A user with a key of `permissions` and `account`'s address linked on the anvil chain. */
  async function userWithWallet(account: LocalAccount, permissions: string[] = []) {
    const user = await t.userWithKey(permissions);
    await linkAddress(t.adminDb, { userId: user.id, address: account.address, chainId: String(anvil.chainId), connector: "injected" });
    return user;
  }

  /** An app session token of `user`, as the check-in app sends it. */
  const sessionToken = (user: UserWithKey) =>
    new SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(user.authUserId)
      .setAudience("authenticated").setIssuedAt().setExpirationTime("5m").sign(new TextEncoder().encode(TEST_JWT_SECRET));

  const post = (path: string, json: unknown, auth: { key?: string; token?: string; headers?: Record<string, string> } = {}) =>
    t.call(`/api/v3/sponsorship/${path}`, {
      method: "POST",
      key: auth.key,
      json,
      headers: { ...(auth.token ? { authorization: `Bearer ${auth.token}` } : {}), ...auth.headers },
    });
  const get = (path: string, query: Record<string, string | number>, auth: { key?: string; token?: string } = {}) =>
    t.call(`/api/v3/sponsorship/${path}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`, {
      key: auth.key,
      headers: auth.token ? { authorization: `Bearer ${auth.token}` } : {},
    });

  /** Sends `amount` from the sponsor's wallet to the vault; returns the hash once mined. */
  async function sendDeposit(account: LocalAccount, amount = parseEther("1"), to: Hex = VAULT) {
    const hash = await chain.wallet(account).sendTransaction({ to, value: amount });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    return hash;
  }

  /** A sponsor (user, key, wallet) with a recorded deposit and settings enabling `check_in`. */
  async function fundedSponsor(account: LocalAccount, settings: Record<string, unknown> = {}, amount = parseEther("1")) {
    const user = await userWithWallet(account);
    const sponsor = { walletAddress: account.address, chainId: anvil.chainId };
    const deposit = await post("deposits/record", { ...sponsor, txHash: await sendDeposit(account, amount) }, { key: user.key });
    if (deposit.status !== 201) throw new Error(`deposit: ${deposit.status} ${await deposit.text()}`);
    const saved = await post("settings", { ...sponsor, enabledOperations: ["check_in"], ...settings }, { key: user.key });
    if (saved.status !== 200) throw new Error(`settings: ${saved.status} ${await saved.text()}`);
    return { user, account, sponsor };
  }

  /** The call data of a check-in for `actor` (mint one token to them). */
  const checkInCall = (actor: LocalAccount, amount = 1n) => encodeFunctionData({ abi: tokenAbi, functionName: "mint", args: [actor.address, amount] });

  /** The provider's server-verifier request for `actor` sending `callData` to the target. */
  const verifyRequest = (actor: LocalAccount, callData: Hex, gas = { gasLimit: "100000", gasPrice: "1000000000" }) => ({
    clientId: CLIENT_ID,
    chainId: anvil.chainId,
    userOp: { sender: actor.address, targets: [target], ...gas, data: { targets: [target], callDatas: [callData], values: ["0"] } },
  });
  /** The provider's call; `secret` null sends none. */
  const providerVerify = (json: unknown, secret: string | null = VERIFIER_SECRET) =>
    t.call("/api/v3/sponsorship/provider/verify", { method: "POST", json, headers: secret === null ? {} : { [VERIFIER_SECRET_HEADER]: secret } });

  /** The actor sends the call itself (a direct EOA), to the target unless `to` says otherwise; returns the hash once mined. */
  async function sendCall(actor: LocalAccount, callData: Hex, to: Hex = target, value = 0n) {
    const hash = await chain.wallet(actor).sendTransaction({ to, data: callData, value });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    return hash;
  }

  return {
    t, chain, anvil, target, newAccount, userWithWallet, sessionToken, post, get, sendDeposit, fundedSponsor, checkInCall,
    verifyRequest, providerVerify, sendCall,
    close: async () => {
      await t.close();
      await anvil.stop();
    },
  };
}
