// The hosted page's payments: prepare the payer's transactions, report the broadcast hash, confirm.
// Authenticated by the client secret alone: every statement runs as the page (`anon`) through the
// client-secret SQL functions, whoever calls, and the chain is read between transactions with the
// service's public client per chain, so each operation runs its own transactions.
import type { z } from "@hono/zod-openapi";
import { type Address, getAddress, type Hex, type LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { fromChain, publicClientFor } from "../chain/clients.ts";
import {
  checkoutRefFromId,
  encodeMint,
  encodeMintWithVoucher,
  type MintRefusalCode,
  NATIVE_TOKEN,
  paymentTransactions,
  readVoucherDomain,
  signMintVoucher,
} from "../collections/contract.ts";
import type { Config } from "../config.ts";
import { ApiError } from "../http/errors.ts";
import { ok, operation } from "../operations/operation.ts";
import { kickWebhookDispatch } from "../webhooks/kick.ts";
import {
  asCheckoutNotFound,
  CHECKOUT_PAGE_SCOPE,
  checkoutNotFound,
  type ClientSecretInput,
  type ClientSessionRow,
  clientSecretHash,
  NO_STORE,
  selectClientSession,
  toClientSession,
} from "./client-session.ts";
import type { ConfirmedCheckoutSessionSchema, ConfirmingSchema, PreparedPaymentSchema, PreparePaymentSchema } from "./schemas.ts";
import { checkoutTerms, completionOf, verifyCheckoutPayment } from "./verification.ts";

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

type PaymentToPrepare = ClientSecretInput & { payment: z.output<typeof PreparePaymentSchema> };

export const preparePayment = operation({
  name: "checkout.prepare_payment",
  ownTransactions: true,
  async run({ database, config }, { checkoutId, clientSecret, payment }: PaymentToPrepare) {
    const { payerAddress, embeddingOrigin } = payment;
    const secretHash = clientSecretHash(clientSecret);
    const payer = getAddress(payerAddress);

    // One transaction: the session the checks saw is the one the attempt is recorded for. The SQL
    // decides payability (PENDING as read) under the session's row lock.
    const { session, attemptId } = await database.transaction(CHECKOUT_PAGE_SCOPE, async (tx) => {
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
    return ok<z.output<typeof PreparedPaymentSchema>>({
      attemptId,
      chainId,
      transactions: transactions.map(({ kind, to, data, value }) => ({ kind, to, data, value: value.toString() })),
      expiresAt: session.expires_at.toISOString(),
    }, 201);
  },
});

/** The page reports the hash as soon as the wallet returns it, so the reconciler can finish a checkout whose page closed. */
export const reportPaymentTransaction = operation({
  name: "checkout.report_payment_transaction",
  ownTransactions: true,
  async run({ database }, { checkoutId, clientSecret, attemptId, txHash }: ClientSecretInput & { attemptId: string; txHash: string }) {
    const secretHash = clientSecretHash(clientSecret);
    const [attempt] = await database.statement(CHECKOUT_PAGE_SCOPE, (tx) => tx<{ id: string; tx_hash: string }[]>`
      select id, tx_hash from checkout.record_payment_transaction(${checkoutId}, ${secretHash}, ${attemptId}, ${txHash})`)
      .catch((error) => {
        throw asCheckoutNotFound(error);
      });
    return ok({ attemptId: attempt!.id, txHash: attempt!.tx_hash }, 202);
  },
});

/** Not a verdict yet: the page polls until the receipt is mined and confirmed enough. */
const NOT_YET = new Set<MintRefusalCode>(["receipt_not_found", "not_enough_confirmations"]);

type Confirmed = z.output<typeof ConfirmedCheckoutSessionSchema>;
type Confirming = z.output<typeof ConfirmingSchema>;

export const confirmPayment = operation({
  name: "checkout.confirm_payment",
  ownTransactions: true,
  async run({ database, config }, { checkoutId, clientSecret, txHash: sentHash }: ClientSecretInput & { txHash: string }) {
    const txHash = sentHash.toLowerCase() as Hex;
    const secretHash = clientSecretHash(clientSecret);

    const [[session], [recorded]] = await database.transaction(CHECKOUT_PAGE_SCOPE, (tx) => Promise.all([
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
        const reason = verification.code as Confirming["reason"];
        return ok<Confirmed | Confirming>({ status: "confirming", reason, message: verification.message }, 202);
      }
      throw new ApiError(400, verification.code, `The transaction does not pay for this checkout: ${verification.message}.`);
    }

    // COMPLETED, the NFTs recorded and the webhook queued in one transaction (the SQL decides what a
    // reused hash or an expired checkout gets); the session read back as the page sees it.
    const done = completionOf(txHash, verification);
    const completed = await database.transaction(CHECKOUT_PAGE_SCOPE, async (tx) => {
      await tx`select from checkout.complete_session(${checkoutId}, ${secretHash}, ${done.txHash}, ${done.payer},
                                                     ${done.tokenIds}::numeric[], ${done.amount}::numeric,
                                                     ${done.paymentToken}, ${done.blockNumber}::bigint)`;
      const [row] = await selectClientSession(tx, checkoutId, secretHash);
      return row!;
    }).catch((error) => {
      throw asCheckoutNotFound(error);
    });
    kickWebhookDispatch({ db: database, config });
    return { status: 200, body: { ...toClientSession(completed), tokenIds: done.tokenIds }, headers: NO_STORE };
  },
});
