// MCP tools of a checkout's payment (_shared/checkout/payments.ts): the transactions a payer signs,
// and the receipt that completes the checkout.
import { z } from "zod";
import { define } from "../tools.ts";
import { ObjectId } from "../../http/openapi.ts";
import { ClientCheckoutSessionSchema, PreparedPaymentSchema, PreparePaymentSchema } from "../../checkout/schemas.ts";
import * as payments from "../../checkout/payments.ts";
import { clientSecret } from "./checkout.ts";
import { ADD, onChain } from "./common.ts";

/** The checkout payment tools, by name. */
export const checkoutPaymentTools = {
  build_checkout_payment: define({
    name: "build_checkout_payment", toolset: "checkout", operation: payments.preparePayment, title: "Build a checkout's payment transactions",
    description: "The transactions a payer signs for a checkout (POST .../payments with the client secret): an ERC-20 approval " +
      "first when needed, then the mint (with the service's voucher for dynamic prices). Records a payment attempt.",
    input: z.object({ checkoutId: ObjectId, clientSecret, payment: PreparePaymentSchema }).strict(),
    output: PreparedPaymentSchema, annotations: onChain(ADD),
  }),
  confirm_checkout_payment: define({
    name: "confirm_checkout_payment", toolset: "checkout", operation: payments.confirmPayment, title: "Verify a checkout's payment receipt",
    description: "Verifies the paying transaction's receipt on-chain and completes the checkout (POST .../confirm): COMPLETED, " +
      "pending while not confirmed, or the receipt's refusal code.",
    input: z.object({
      checkoutId: ObjectId,
      clientSecret,
      txHash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).describe("The hash of the mint transaction the payer sent: 0x and 64 hex digits"),
    }).strict(),
    output: z.union([
      ClientCheckoutSessionSchema,
      z.object({ status: z.string().describe("`confirming` while not confirmed, with `reason` and `message`") }).catchall(z.unknown()),
    ]).describe("The completed checkout, or why it is not confirmed yet"),
    annotations: onChain({ ...ADD, idempotentHint: true }),
  }),
};
