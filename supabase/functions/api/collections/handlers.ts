import type { RouteHandler, z } from "@hono/zod-openapi";
import { type Address, getAddress } from "viem";
import { scopeOf } from "../../_shared/auth/principal.ts";
import { type ChainRead, NATIVE_TOKEN, readCollectionOwner, readTokenDecimals, readTokenSymbol } from "../../_shared/chain/collection.ts";
import { fromChain, publicClientFor } from "../../_shared/chain/clients.ts";
import type { Tx } from "../../_shared/db/database.ts";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError, renameConflict } from "../../_shared/http/errors.ts";
import * as routes from "./routes.ts";

type Collection = z.infer<typeof routes.CollectionSchema>;

interface CollectionRow {
  id: string;
  chain_id: bigint;
  address: string;
  pricing: "static" | "dynamic";
  mint_price: string | null;
  payment_token: string | null;
  token_decimals: number;
  token_symbol: string | null;
  provider_card_chain_ids: bigint[];
  verified_owner_address: string;
  created_at: Date;
}

const collectionColumns = (tx: Tx) =>
  tx`id, chain_id, address, pricing, mint_price::text, payment_token, token_decimals, token_symbol, provider_card_chain_ids,
     verified_owner_address, created_at`;

function toCollection(row: CollectionRow): Collection {
  return {
    id: row.id,
    chainId: Number(row.chain_id),
    address: row.address,
    pricing: row.pricing,
    mintPrice: row.mint_price,
    paymentToken: row.payment_token,
    tokenDecimals: row.token_decimals,
    tokenSymbol: row.token_symbol,
    providerCardChainIds: row.provider_card_chain_ids.map(Number),
    ownerAddress: row.verified_owner_address,
    createdAt: row.created_at.toISOString(),
  };
}

/** A chain read's value; a refusal by the contract is the caller's 400 `code`. */
async function chainValue<T>(read: Promise<ChainRead<T>>, code: string, what: string): Promise<T> {
  const result = await fromChain(read);
  if (!result.ok) throw new ApiError(400, code, `${what}: ${result.message}`, { reason: result.code });
  return result.value;
}

/** The token's symbol, for display only: null when the contract has no readable one. */
async function symbolOrNull(read: Promise<ChainRead<string | null>>): Promise<string | null> {
  const result = await fromChain(read);
  return result.ok ? result.value : null;
}

export const registerCollection: RouteHandler<typeof routes.registerCollection, AppEnv> = async (c) => {
  const input = c.req.valid("json");
  const scope = scopeOf(c.get("principal"));
  const db = c.get("db");
  const client = publicClientFor(c.get("config"), input.chainId);
  // The chain is called before any statement runs: a bad key must not buy RPC calls.
  await db.verify(scope);

  const address = getAddress(input.address);
  const paymentToken: Address = input.paymentToken ? getAddress(input.paymentToken) : NATIVE_TOKEN;
  const [owner, tokenDecimals, tokenSymbol] = await Promise.all([
    chainValue(readCollectionOwner(client, address), "not_a_collection", "The address is not a collection with owner()"),
    chainValue(readTokenDecimals(client, paymentToken), "invalid_payment_token", "The payment token has no decimals()"),
    // For display only: a token without a readable symbol() is registered without one.
    symbolOrNull(readTokenSymbol(client, paymentToken)),
  ]);

  // Inserted only when owner() is one of the caller's linked addresses on the chain; the insert
  // policy checks the same again, so this only tells that refusal apart from the others.
  const [row] = await db.statement(scope, (tx) => tx<CollectionRow[]>`
    insert into checkout.collections (chain_id, address, pricing, mint_price, payment_token, token_decimals,
                                      token_symbol, provider_card_chain_ids, verified_owner_address)
    select ${input.chainId}::bigint, ${address}::text, ${input.pricing}::text, ${input.mintPrice ?? null}::numeric,
           ${input.paymentToken ? paymentToken : null}::text, ${tokenDecimals}::smallint, ${tokenSymbol}::text,
           ${input.providerCardChainIds}::bigint[], ${owner}::text
    where exists (
      select from core.crypto_addresses a
      where a.user_id = core.current_user_id() and a.chain_id = ${String(input.chainId)} and lower(a.address) = lower(${owner})
    )
    returning ${collectionColumns(tx)}`).catch((error) => {
    throw renameConflict(error, "collections_chain_address_key", "collection_already_registered",
      "This collection is already registered on this chain.");
  });
  if (!row) {
    throw new ApiError(403, "collection_not_owned",
      `The collection's owner() is ${owner}, which is not one of your linked addresses on chain ${input.chainId}.`,
      { owner, chainId: input.chainId });
  }
  return c.json(toCollection(row), 201);
};

export const listCollections: RouteHandler<typeof routes.listCollections, AppEnv> = async (c) => {
  const rows = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<CollectionRow[]>`
    select ${collectionColumns(tx)} from checkout.collections order by created_at desc, id desc`);
  return c.json({ items: rows.map(toCollection) }, 200);
};

export const getCollection: RouteHandler<typeof routes.getCollection, AppEnv> = async (c) => {
  const { collectionId } = c.req.valid("param");
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<CollectionRow[]>`
    select ${collectionColumns(tx)} from checkout.collections where id = ${collectionId}`);
  if (!row) throw new ApiError(404, "not_found", "No collection of yours has this id.");
  return c.json(toCollection(row), 200);
};

export const collectionsRouter = createRouter()
  .openapi(routes.registerCollection, registerCollection)
  .openapi(routes.listCollections, listCollections)
  .openapi(routes.getCollection, getCollection);
