// The hosted page's payment routes: prepare, report the broadcast transaction, confirm.
// Authenticated by X-Checkout-Client-Secret only, like the session read.
import { createRoute } from "@hono/zod-openapi";
import {
  ConfirmedCheckoutSessionSchema,
  ConfirmingSchema,
  PreparedPaymentSchema,
  PreparePaymentSchema,
  RecordedPaymentTransactionSchema,
  TxHashBody,
} from "../../_shared/checkout/schemas.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { jsonContent, pathIds } from "../../_shared/http/openapi.ts";
import { chainUnavailableResponse } from "../../_shared/chain/responses.ts";
import { checkoutIdParam, clientSecretHeaders, clientSecretSecurity } from "./routes.ts";

const tags = ["Checkout"];

const SECRET_AUTH = "Authenticated only by `X-Checkout-Client-Secret`: a wrong or missing secret answers exactly like an " +
  "unknown checkout id (404 `not_found`).";

export const preparePayment = createRoute({
  operationId: "preparePayment",
  method: "post",
  path: "/api/v3/checkout/sessions/{checkoutId}/payments",
  tags,
  summary: "Prepare a payment: the transactions the payer signs (hosted page, X-Checkout-Client-Secret)",
  description: `${SECRET_AUTH} Records a payment attempt for \`payerAddress\` and its time (an EXPIRED checkout ` +
    "completes only for a transaction prepared before expiry). `embeddingOrigin` must equal the session's " +
    "`allowedOrigin` (403 `origin_not_allowed`). Static price: `mint(payer, checkoutRef)`; dynamic price: " +
    "`mintWithVoucher` with the service's EIP-712 voucher for the session's price, valid until `expiresAt` (400 " +
    "`dynamic_pricing_unavailable` when the service has no signing key); ERC-20: the approval comes first. 409 " +
    "`checkout_not_payable` (with `details.status`) once the checkout is EXPIRED, COMPLETED or FAILED.",
  security: clientSecretSecurity,
  request: {
    params: checkoutIdParam,
    headers: clientSecretHeaders,
    body: { required: true, ...jsonContent(PreparePaymentSchema) },
  },
  responses: {
    201: { description: "The recorded attempt and its transactions", ...jsonContent(PreparedPaymentSchema) },
    ...errorResponses(400, 403, 404, 409, 413, 415),
    ...chainUnavailableResponse,
  },
});

export const reportPaymentTransaction = createRoute({
  operationId: "reportPaymentTransaction",
  method: "post",
  path: "/api/v3/checkout/sessions/{checkoutId}/payments/{attemptId}/transaction",
  tags,
  summary: "Report the broadcast mint transaction of a payment attempt (hosted page, X-Checkout-Client-Secret)",
  description: `${SECRET_AUTH} Send it as soon as the wallet returns the hash, before waiting for the receipt: if the ` +
    "customer closes the page, the service's reconciler still completes the checkout. 404 " +
    "`payment_attempt_not_found` for an attempt of another checkout; 409 `attempt_has_another_transaction` when the " +
    "attempt already has a different hash.",
  security: clientSecretSecurity,
  request: {
    params: pathIds("checkoutId", "attemptId"),
    headers: clientSecretHeaders,
    body: { required: true, ...jsonContent(TxHashBody.openapi("PaymentTransactionHash")) },
  },
  responses: {
    202: { description: "Recorded", ...jsonContent(RecordedPaymentTransactionSchema) },
    ...errorResponses(400, 404, 409, 413, 415),
  },
});

export const confirmPayment = createRoute({
  operationId: "confirmPayment",
  method: "post",
  path: "/api/v3/checkout/sessions/{checkoutId}/confirm",
  tags,
  summary: "Confirm the payment with its transaction hash (hosted page, X-Checkout-Client-Secret)",
  description: `${SECRET_AUTH} Verifies the receipt on the checkout's chain: successful, the collection's ` +
    "CheckoutMinted with this checkout's reference, the amount in the right token, the NFT minted to the payer, and " +
    "the chain's configured confirmations. The payer is the one whose attempt reported this hash (POST " +
    "`.../payments/{attemptId}/transaction`), else the transaction's sender. Not mined or not confirmed enough yet: " +
    "202 `confirming` (poll again). Refused: 400 with `transaction_reverted`, `wrong_chain`, `wrong_contract`, " +
    "`wrong_checkout_reference`, `wrong_amount`, `wrong_token` or `not_minted_to_payer`. Verified: the checkout " +
    "is COMPLETED and its `checkout.completed` webhook queued, in one transaction. The same hash again answers " +
    "the COMPLETED session again; a hash that completed another checkout, or a checkout completed by another " +
    "hash: 409 `transaction_already_used`. An EXPIRED checkout completes only when the payer prepared the " +
    "payment before expiry (409 `checkout_not_payable` otherwise). A FAILED checkout answers 409 " +
    "`checkout_not_payable` at once. A refused `wrong_amount` or `wrong_token` mint does not fail the checkout " +
    "here: the reconciler decides FAILED (the reference was consumed by a mint that cannot pay it).",
  security: clientSecretSecurity,
  request: {
    params: checkoutIdParam,
    headers: clientSecretHeaders,
    body: { required: true, ...jsonContent(TxHashBody.openapi("ConfirmCheckout")) },
  },
  responses: {
    200: { description: "The COMPLETED session", ...jsonContent(ConfirmedCheckoutSessionSchema) },
    202: { description: "Not mined, or not enough confirmations yet: poll again", ...jsonContent(ConfirmingSchema) },
    ...errorResponses(400, 404, 409, 413, 415),
    ...chainUnavailableResponse,
  },
});
