// The hosted page's view of a session, shared by the session read, the payment operations and the
// page itself: all authenticated by the client secret alone, as `anon` (the SQL functions check the
// secret's hash).
import type { z } from "@hono/zod-openapi";
// node:crypto, synchronous: Web Crypto's async digest cost more per call than hashing these few bytes.
import { sha256 } from "../crypto/sha256.ts";
import type { Database, Tx } from "../db/database.ts";
import type { ClaimsScope } from "../db/scopes.ts";
import { ApiError } from "../http/errors.ts";
import type { ClientCheckoutSessionSchema } from "./schemas.ts";

type ClientCheckoutSession = z.infer<typeof ClientCheckoutSessionSchema>;

/** The hosted page's role: no user, no table privilege; the client-secret functions check the secret. */
export const CHECKOUT_PAGE_SCOPE: ClaimsScope = { kind: "claims", role: "anon", claims: { role: "anon" } };

/** What every client-secret operation takes: the checkout and the secret the page or storefront holds. */
export interface ClientSecretInput {
  checkoutId: string;
  /** Absent when the request sent none. */
  clientSecret: string | undefined;
}

/** Readable with the secret only: no shared cache may keep a client-secret operation's session. */
export const NO_STORE = { "cache-control": "no-store" };

/** The hash the client-secret functions take. A missing secret is hashed like a wrong one, so neither answers sooner than an unknown id. */
export const clientSecretHash = (secret: string | undefined) => sha256(secret ?? "");

/** What every client-secret operation answers for an unknown id, a wrong secret or none. */
export const checkoutNotFound = () => new ApiError(404, "not_found", "No checkout with this id and client secret.");

/**
 * The SQL functions' own "no such session" (PT404 checkout_not_found, from a wrong secret) as the
 * client-secret operations answer it: exactly like an unknown id.
 */
export function asCheckoutNotFound(error: unknown): unknown {
  return error instanceof ApiError && error.code === "checkout_not_found" ? checkoutNotFound() : error;
}

export interface ClientSessionRow {
  id: string;
  status: ClientCheckoutSession["status"];
  expires_at: Date;
  items: ClientCheckoutSession["item"][];
  price: string;
  payment_methods: ClientCheckoutSession["paymentMethods"];
  allowed_origin: string;
  chain_id: bigint;
  collection_address: string;
  payment_token: string | null;
  token_decimals: number;
  token_symbol: string | null;
  pricing: ClientCheckoutSession["pricing"];
  tx_hash: string | null;
  completed_at: Date | null;
  failure_reason: string | null;
}

/** The client-safe session of this id and secret hash, or no row. */
export const selectClientSession = (tx: Tx, checkoutId: string, secretHash: Uint8Array) => tx<ClientSessionRow[]>`
  select id, status, expires_at, items, price::text, payment_methods, allowed_origin, chain_id, collection_address,
         payment_token, token_decimals, token_symbol, pricing, tx_hash, completed_at, failure_reason
  from checkout.session_by_client_secret(${checkoutId}, ${secretHash})`;

/** The session row, or 404 `not_found`. */
export async function readClientSession(db: Database, checkoutId: string, secretHash: Uint8Array): Promise<ClientSessionRow> {
  const [row] = await db.statement(CHECKOUT_PAGE_SCOPE, (tx) => selectClientSession(tx, checkoutId, secretHash));
  if (!row) throw checkoutNotFound();
  return row;
}

export function toClientSession(row: ClientSessionRow): ClientCheckoutSession {
  return {
    checkoutId: row.id,
    status: row.status,
    expiresAt: row.expires_at.toISOString(),
    item: row.items[0]!,
    price: row.price,
    paymentToken: { address: row.payment_token, decimals: row.token_decimals, symbol: row.token_symbol },
    chainId: Number(row.chain_id),
    collectionAddress: row.collection_address,
    pricing: row.pricing,
    paymentMethods: row.payment_methods,
    allowedOrigin: row.allowed_origin,
    transactionHash: row.tx_hash,
    completedAt: row.completed_at?.toISOString() ?? null,
    failureReason: row.failure_reason,
  };
}

/**
 * The origin allowed to frame the hosted page of `checkoutId`, or null (an unknown checkout). The
 * page's request carries no secret (it is in the fragment), and this is the one thing anon may learn
 * about a session without it.
 */
export async function allowedOriginOf(db: Database, checkoutId: string): Promise<string | null> {
  const [row] = await db.statement(CHECKOUT_PAGE_SCOPE, (tx) =>
    tx<{ origin: string | null }[]>`select checkout.allowed_origin_of(${checkoutId}) as origin`);
  return row?.origin ?? null;
}
