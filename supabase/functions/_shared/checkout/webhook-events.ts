// The payload of the `checkout.completed` webhook, as the outbox stores it and the dispatcher sends
// it (checkout.complete_locked_session builds it in SQL). The dispatcher checks every payload
// against this schema before it signs and sends it, and the API's document describes the webhook
// with it: what is documented is what is sent.
import { z } from "@hono/zod-openapi";

const EvmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const Decimal = z.string().regex(/^[0-9]+$/);

export const CheckoutCompletedPayloadSchema = z.object({
  type: z.literal("checkout.completed").openapi({ description: "The event's type" }),
  checkoutId: z.string().regex(/^[0-9a-f]{24}$/).openapi({ description: "The checkout session's id (`createCheckoutSession`'s `id`)", example: "65f1c0a2b3d4e5f601234567" }),
  externalOrderId: z.string().openapi({ description: "Your order's id, as you sent it to `createCheckoutSession`" }),
  transactionHash: z.string().regex(/^0x[0-9a-f]{64}$/).openapi({ description: "The payment's transaction hash" }),
  blockNumber: z.number().int().nullable().openapi({ description: "The block the payment's transaction is in" }),
  amount: Decimal.openapi({ description: "The price paid, in the payment token's smallest unit (wei for the chain's native coin), as a decimal string" }),
  paymentToken: EvmAddress.nullable().openapi({ description: "The ERC-20 token paid with, or null for the chain's native coin" }),
  chainId: z.number().int().positive().openapi({ description: "The EVM chain id of the collection", example: 8453 }),
  collectionAddress: EvmAddress.openapi({ description: "The NFT collection's contract address" }),
  tokenIds: z.array(Decimal).min(1).openapi({ description: "The token ids minted to `ownerWallet`, as decimal strings, ascending" }),
  ownerWallet: EvmAddress.openapi({ description: "The wallet that paid and now holds the tokens" }),
  completedAt: z.string().datetime().openapi({ description: "When the checkout completed (UTC, milliseconds)" }),
}).strict().openapi("CheckoutCompletedPayload");

export type CheckoutCompletedPayload = z.infer<typeof CheckoutCompletedPayloadSchema>;
