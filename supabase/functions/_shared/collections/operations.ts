// What can be done with NFT collections, for every surface. Registration reads the contract on its
// chain (owner(), the payment token's decimals() and symbol()) before it inserts; RLS keeps each
// owner's collections their own.
import type { z } from "@hono/zod-openapi";
import { type Address, getAddress } from "viem";
import { scopeOf } from "../auth/principal.ts";
import { fromChain, publicClientFor } from "../chain/clients.ts";
import type { Tx } from "../db/database.ts";
import { ApiError, renameConflict } from "../http/errors.ts";
import { ok, operation } from "../operations/operation.ts";
import { type ChainRead, NATIVE_TOKEN, readCollectionOwner, readTokenDecimals, readTokenSymbol } from "./contract.ts";
import type { CollectionSchema, RegisterCollectionSchema } from "./schemas.ts";

type Collection = z.infer<typeof CollectionSchema>;

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

const READ = ["checkout:read"] as const;

/** API keys only (no scopes): it reads the chain before it writes, so it runs its own transactions. */
export const registerCollection = operation({
  name: "collections.register",
  ownTransactions: true,
  async run({ principal, db, database, config }, input: z.output<typeof RegisterCollectionSchema>) {
    const client = publicClientFor(config, input.chainId);
    // The chain is called before any statement runs: a bad key must not buy RPC calls.
    await database.verify(scopeOf(principal));

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
    const [row] = await db.statement((tx) => tx<CollectionRow[]>`
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
    return ok(toCollection(row), 201);
  },
});

export const listCollections = operation({
  name: "collections.list",
  scopes: READ,
  async run({ db }, _: Record<string, never>) {
    const rows = await db.statement((tx) => tx<CollectionRow[]>`
      select ${collectionColumns(tx)} from checkout.collections order by created_at desc, id desc`);
    return ok({ items: rows.map(toCollection) });
  },
});

export const getCollection = operation({
  name: "collections.get",
  scopes: READ,
  async run({ db }, { collectionId }: { collectionId: string }) {
    const [row] = await db.statement((tx) => tx<CollectionRow[]>`
      select ${collectionColumns(tx)} from checkout.collections where id = ${collectionId}`);
    if (!row) throw new ApiError(404, "not_found", "No collection of yours has this id.");
    return ok(toCollection(row));
  },
});
