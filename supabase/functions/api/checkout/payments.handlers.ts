// The hosted page's payment operations (payments.routes.ts). Every statement runs as `anon` through
// the client-secret SQL functions; the chain is read with the service's public client per chain.
import type { RouteHandler } from "@hono/zod-openapi";
import { type Address, getAddress, type Hex, type LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { fromChain, publicClientFor } from "../../_shared/chain/clients.ts";
import {
  checkoutRefFromId,
  encodeMint,
  encodeMintWithVoucher,
  type MintRefusalCode,
  NATIVE_TOKEN,
  paymentTransactions,
  readVoucherDomain,
  signMintVoucher,
} from "../../_shared/chain/collection.ts";
import { checkoutTerms, completionOf, verifyCheckoutPayment } from "../../_shared/checkout/verification.ts";
import type { Config } from "../../_shared/config.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { kickWebhookDispatch } from "../../_shared/webhooks/kick.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import {
  asCheckoutNotFound,
  CHECKOUT_PAGE_SCOPE,
  checkoutNotFound,
  type ClientSessionRow,
  clientSecretHash,
  selectClientSession,
  toClientSession,
} from "./client-session.ts";
import * as routes from "./payments.routes.ts";
import { CLIENT_SECRET_HEADER } from "./routes.ts";

const signers = new WeakMap<Config, LocalAccount>();

/** The service's voucher signer (SERVICE_SIGNER_PRIVATE_KEY), or 400 `dynamic_pricing_unavailable`. */
function voucherSigner(config: Config): LocalAccount {
  if (!config.SERVICE_SIGNER_PRIVATE_KEY) {
    throw new ApiError(400, "dynamic_pricing_unavailable",
      "This service has no voucher signing key (SERVICE_SIGNER_PRIVATE_KEY), so dynamic-price checkouts cannot be paid.");
  }
  let signer = signers.get(config);
  if (!signer) signers.set(config, signer = privateKeyToAccount(config.SERVICE_SIGNER_PRIVATE_KEY as Hex));
  return signer;
}

/** The mint's calldata: `mint` at the static price, or `mintWithVoucher` signed for the session's price until it expires. */
async function mintCalldata(config: Config, session: ClientSessionRow, payer: Address): Promise<Hex> {
  const checkoutRef = checkoutRefFromId(session.id);
  if (session.pricing === "static") return encodeMint({ to: payer, checkoutRef });
  const signer = voucherSigner(config);
  const client = publicClientFor(config, Number(session.chain_id));
  const domain = await fromChain(readVoucherDomain(client, getAddress(session.collection_address)));
  if (!domain.ok) {
    throw new ApiError(400, "dynamic_pricing_unavailable", `The collection's EIP-712 domain cannot be read: ${domain.message}`);
  }
  const voucher = {
    checkoutRef,
    to: payer,
    price: BigInt(session.price),
    deadline: BigInt(Math.floor(session.expires_at.getTime() / 1000)),
  };
  return encodeMintWithVoucher(voucher, await signMintVoucher(signer, domain.value, voucher));
}

export const preparePayment: RouteHandler<typeof routes.preparePayment, AppEnv> = async (c) => {
  const { checkoutId } = c.req.valid("param");
  const { payerAddress, embeddingOrigin } = c.req.valid("json");
  const config = c.get("config");
  const secretHash = clientSecretHash(c.req.valid("header")[CLIENT_SECRET_HEADER]);
  const payer = getAddress(payerAddress);

  // One transaction: the session the checks saw is the one the attempt is recorded for. The SQL
  // decides payability (PENDING as read) under the session's row lock.
  const { session, attemptId } = await c.get("db").transaction(CHECKOUT_PAGE_SCOPE, async (tx) => {
    const [session] = await selectClientSession(tx, checkoutId, secretHash);
    if (!session) throw checkoutNotFound();
    // SPEC 4.4 rule 5, the server's half: payment actions only for the registered storefront origin.
    if (embeddingOrigin !== session.allowed_origin) {
      throw new ApiError(403, "origin_not_allowed", "The checkout is embedded by an origin other than the session's allowedOrigin.");
    }
    // Before recording: a service that cannot sign vouchers should not leave attempts behind.
    if (session.pricing === "dynamic") voucherSigner(config);
    const [attempt] = await tx<{ id: string }[]>`select id from checkout.record_payment_attempt(${checkoutId}, ${secretHash}, ${payer})`;
    return { session, attemptId: attempt!.id };
  }).catch((error) => {
    throw asCheckoutNotFound(error);
  });

  // The chain is read after the commit, so no RPC call holds the session's lock. Should it fail, the
  // attempt stays without a transaction (harmless: the page prepares again).
  const chainId = Number(session.chain_id);
  const transactions = paymentTransactions({
    chainId,
    collection: getAddress(session.collection_address),
    paymentToken: session.payment_token ? getAddress(session.payment_token) : NATIVE_TOKEN,
    amount: BigInt(session.price),
    mintData: await mintCalldata(config, session, payer),
  });
  return c.json({
    attemptId,
    chainId,
    transactions: transactions.map(({ kind, to, data, value }) => ({ kind, to, data, value: value.toString() })),
    expiresAt: session.expires_at.toISOString(),
  }, 201);
};

export const recordPaymentTransaction: RouteHandler<typeof routes.recordPaymentTransaction, AppEnv> = async (c) => {
  const { checkoutId, attemptId } = c.req.valid("param");
  const { txHash } = c.req.valid("json");
  const secretHash = clientSecretHash(c.req.valid("header")[CLIENT_SECRET_HEADER]);
  const [attempt] = await c.get("db").statement(CHECKOUT_PAGE_SCOPE, (tx) => tx<{ id: string; tx_hash: string }[]>`
    select id, tx_hash from checkout.record_payment_transaction(${checkoutId}, ${secretHash}, ${attemptId}, ${txHash})`)
    .catch((error) => {
      throw asCheckoutNotFound(error);
    });
  return c.json({ attemptId: attempt!.id, txHash: attempt!.tx_hash }, 202);
};

/** Not a verdict yet: the page polls until the receipt is mined and confirmed enough. */
const NOT_YET = new Set<MintRefusalCode>(["receipt_not_found", "not_enough_confirmations"]);

export const confirmPayment: RouteHandler<typeof routes.confirmPayment, AppEnv> = async (c) => {
  const { checkoutId } = c.req.valid("param");
  const txHash = c.req.valid("json").txHash.toLowerCase() as Hex;
  const config = c.get("config");
  const db = c.get("db");
  const secretHash = clientSecretHash(c.req.valid("header")[CLIENT_SECRET_HEADER]);

  const [[session], [recorded]] = await db.transaction(CHECKOUT_PAGE_SCOPE, (tx) => Promise.all([
    selectClientSession(tx, checkoutId, secretHash),
    tx<{ payer: string | null }[]>`select checkout.payer_of_transaction(${checkoutId}, ${secretHash}, ${txHash}) as payer`,
  ]));
  if (!session) throw checkoutNotFound();
  // FAILED is terminal (its reference was used by a mint that cannot pay it): no chain read, the
  // same answer the SQL gives (complete_locked_session).
  if (session.status === "FAILED") {
    throw new ApiError(409, "checkout_not_payable", "This checkout is FAILED and cannot complete.", { status: session.status });
  }

  // The payer is the wallet the page prepared this transaction for (its attempt reported the hash);
  // a page that never reported it: the transaction's sender, which is the payer for an ordinary
  // wallet (read from the receipt the verification fetches anyway). Either way the NFT must have
  // been minted to that payer.
  const payer = recorded?.payer ? getAddress(recorded.payer) : null;
  const verification = await fromChain(verifyCheckoutPayment(config, checkoutTerms(session.id, session), txHash, payer));
  if (!verification.ok) {
    if (NOT_YET.has(verification.code)) {
      return c.json({ status: "confirming" as const, reason: verification.code as "receipt_not_found", message: verification.message }, 202);
    }
    throw new ApiError(400, verification.code, `The transaction does not pay for this checkout: ${verification.message}.`);
  }

  // COMPLETED, the NFTs recorded and the webhook queued in one transaction (the SQL decides what a
  // reused hash or an expired checkout gets); the session read back as the page sees it.
  const done = completionOf(txHash, verification);
  const completed = await db.transaction(CHECKOUT_PAGE_SCOPE, async (tx) => {
    await tx`select from checkout.complete_session(${checkoutId}, ${secretHash}, ${done.txHash}, ${done.payer},
                                                   ${done.tokenIds}::numeric[], ${done.amount}::numeric,
                                                   ${done.paymentToken}, ${done.blockNumber}::bigint)`;
    const [row] = await selectClientSession(tx, checkoutId, secretHash);
    return row!;
  }).catch((error) => {
    throw asCheckoutNotFound(error);
  });
  kickWebhookDispatch({ db, config });
  c.header("cache-control", "no-store");
  return c.json({ ...toClientSession(completed), tokenIds: done.tokenIds }, 200);
};
