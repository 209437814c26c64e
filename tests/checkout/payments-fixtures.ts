// The hosted page's side of a checkout in tests: collections that really take payment (deployed
// with the pricing they are registered with, vouchers signed by the service's test key), the
// page's calls with the client secret, and a customer's wallet sending the prepared transactions.
import { type Address, type Hex, type HDAccount, parseAbi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { CollectionParams } from "../../scripts/lib/contracts.ts";
import type { UserWithKey } from "../setup/test-context.ts";
import { type CheckoutWorld, createSession, sessionRequest, startCheckoutWorld } from "./checkout-fixtures.ts";

/** The service's voucher key in these tests; dynamic collections name its address as priceSigner. */
export const SERVICE_SIGNER_KEY = generatePrivateKey();
export const serviceSigner = privateKeyToAccount(SERVICE_SIGNER_KEY);

export const STORE_ORIGIN = "https://store.example";
export const PRICE = 10_000_000_000_000_000n; // sessionRequest's mintPrice

const testTokenAbi = parseAbi(["function mint(address to, uint256 amount)"]);

export interface Session {
  checkoutId: string;
  clientSecret: string;
  expiresAt: string;
}

export interface PreparedPayment {
  attemptId: string;
  chainId: number;
  transactions: { kind: "approve" | "mint"; to: Address; data: Hex; value: string }[];
  expiresAt: string;
}

export async function startPaymentsWorld() {
  const w: CheckoutWorld = await startCheckoutWorld({ SERVICE_SIGNER_PRIVATE_KEY: SERVICE_SIGNER_KEY });

  /**
   * Deploys a collection owned by `account` that charges what it is registered with, and registers
   * it for `user`: static at PRICE or dynamic (vouchers by serviceSigner), in `paymentToken` or native.
   */
  async function payableCollection(user: UserWithKey, account: HDAccount, pricing: "static" | "dynamic", paymentToken?: Address) {
    const params: Partial<CollectionParams> = { pricing, paymentToken, priceSigner: serviceSigner.address, staticPrice: pricing === "static" ? PRICE : 0n };
    const address = await w.deploy(account.address, params);
    const response = await w.register(user.key, {
      address,
      pricing,
      ...(pricing === "static" ? { mintPrice: String(PRICE) } : {}),
      paymentToken: paymentToken ?? null,
    });
    if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
    return { id: (await response.json()).id as string, address };
  }

  /** A new PENDING session of `collectionId` at PRICE. */
  async function newSession(user: UserWithKey, collectionId: string, overrides: Record<string, unknown> = {}): Promise<Session> {
    const response = await createSession(w.t, user.key, sessionRequest(collectionId, overrides));
    if (response.status !== 201) throw new Error(`create session: ${response.status} ${await response.text()}`);
    return response.json();
  }

  /** A POST of the hosted page, authenticated by `secret` (none when null). */
  const pageCall = (path: string, secret: string | null, json: unknown) =>
    w.t.call(`/api/v3/checkout/sessions/${path}`, {
      method: "POST",
      json,
      headers: secret === null ? {} : { "X-Checkout-Client-Secret": secret },
    });

  const prepare = (session: Session, payer: Address, embeddingOrigin = STORE_ORIGIN, secret: string | null = session.clientSecret) =>
    pageCall(`${session.checkoutId}/payments`, secret, { payerAddress: payer, embeddingOrigin });

  const reportTransaction = (session: Session, attemptId: string, txHash: Hex, secret: string | null = session.clientSecret) =>
    pageCall(`${session.checkoutId}/payments/${attemptId}/transaction`, secret, { txHash });

  const confirm = (session: Session, txHash: Hex, secret: string | null = session.clientSecret) =>
    pageCall(`${session.checkoutId}/confirm`, secret, { txHash });

  /** Prepares for `payer` and returns the answer's body, failing on anything but 201. */
  async function prepared(session: Session, payer: Address): Promise<PreparedPayment> {
    const response = await prepare(session, payer);
    if (response.status !== 201) throw new Error(`prepare: ${response.status} ${await response.text()}`);
    return response.json();
  }

  /** Sends the prepared transactions from `account` in order, each mined; returns the mint's hash. */
  async function pay(account: HDAccount, payment: PreparedPayment): Promise<Hex> {
    const wallet = w.chain.wallet(account);
    let mint: Hex | undefined;
    for (const transaction of payment.transactions) {
      const hash = await wallet.sendTransaction({ to: transaction.to, data: transaction.data, value: BigInt(transaction.value) });
      const receipt = await w.chain.publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error(`${transaction.kind} reverted`);
      if (transaction.kind === "mint") mint = hash;
    }
    return mint!;
  }

  /** Gives `to` `amount` of the test ERC-20 (anyone may mint it). */
  async function fund(token: Address, to: Address, amount: bigint) {
    const hash = await w.chain.wallet(w.anvil.accounts[0]!).writeContract({ address: token, abi: testTokenAbi, functionName: "mint", args: [to, amount] });
    await w.chain.publicClient.waitForTransactionReceipt({ hash });
  }

  /** The webhook deliveries queued for a checkout. */
  const deliveries = (checkoutId: string) =>
    w.t.owner<{ event_id: string; payload: Record<string, unknown> }[]>`
      select event_id, payload from checkout.webhook_deliveries where session_id = ${checkoutId}`;

  return { ...w, payableCollection, newSession, prepare, prepared, reportTransaction, confirm, pay, fund, deliveries };
}

export type PaymentsWorld = Awaited<ReturnType<typeof startPaymentsWorld>>;
