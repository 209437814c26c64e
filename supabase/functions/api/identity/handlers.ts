import type { createRoute, RouteHandler } from "@hono/zod-openapi";
import { getAddress, verifyMessage } from "viem";
import { generateSiweNonce } from "viem/siwe";
import { scopeOf } from "../../_shared/auth/principal.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { createRouter } from "../../_shared/http/app.ts";
import * as routes from "./routes.ts";
import { checkSiweMessage } from "./siwe.ts";

type Handler<R extends Parameters<typeof createRoute>[0]> = RouteHandler<R, AppEnv>;

interface CryptoAddressRow {
  address: string;
  chain_id: string;
  connector: string;
  created_at: Date;
}

export function toCryptoAddress(row: CryptoAddressRow) {
  return {
    address: row.address,
    chainId: /^[0-9]+$/.test(row.chain_id) ? Number(row.chain_id) : row.chain_id,
    connector: row.connector,
    createdAt: row.created_at.toISOString(),
  };
}

export const getSession: Handler<typeof routes.getSession> = async (c) => {
  const principal = c.get("principal");
  if (principal.kind === "anonymous") throw new Error("getSession runs after requireApiKey");
  const id = principal.kind === "api_key" ? await c.get("db").apiKeyOwner(principal.scope) : principal.userId;
  return c.json({ user: { id } }, 200);
};

export const getMe: Handler<typeof routes.getMe> = async (c) => {
  const principal = c.get("principal");
  if (principal.kind !== "api_key") throw new ApiError(401, "missing_api_key", "Send your API key in the x-api-key header.");
  // One statement: the function checks the key and reads the profile under RLS.
  const [row] = await c.get("db").apiKeyFunction(principal.scope, (sql, keyHash, required) => sql<{
    id: string; email: string | null; username: string | null; display_name: string | null;
    bio: string | null; avatar_url: string | null; created_at: Date; updated_at: Date;
  }[]>`select * from core.me_by_api_key(${keyHash}, ${required}::text[])`, ([me]) => me?.id);
  if (!row) throw new ApiError(404, "not_found", "The key's owner has no profile.");
  return c.json({
    id: row.id,
    email: row.email,
    username: row.username,
    displayName: row.display_name,
    bio: row.bio,
    avatarUrl: row.avatar_url,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }, 200);
};

export const listCryptoAddresses: Handler<typeof routes.listCryptoAddresses> = async (c) => {
  const rows = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<CryptoAddressRow[]>`
    select address, chain_id, connector, created_at from core.crypto_addresses order by created_at, id`);
  return c.json({ items: rows.map(toCryptoAddress) }, 200);
};

export const createSiweNonce: Handler<typeof routes.createSiweNonce> = async (c) => {
  const nonce = generateSiweNonce();
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<{ expires_at: Date }[]>`
    select core.issue_siwe_nonce(${nonce}) as expires_at`);
  return c.json({ nonce, expiresAt: row!.expires_at.toISOString(), domains: c.get("config").SIWE_DOMAINS }, 201);
};

export const linkCryptoAddress: Handler<typeof routes.linkCryptoAddress> = async (c) => {
  const body = c.req.valid("json");
  const claims = checkSiweMessage(body.message, c.get("config").SIWE_DOMAINS, new Date());
  const address = getAddress(claims.address);
  const signedByAddress = await verifyMessage({ address, message: body.message, signature: body.signature as `0x${string}` })
    .catch(() => false);
  if (!signedByAddress) throw new ApiError(400, "siwe_signature_invalid", "The signature was not made by the message's address.");
  const [row] = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx<CryptoAddressRow[]>`
    select address, chain_id, connector, created_at
    from core.link_crypto_address(${claims.nonce}, ${address}, ${claims.chainId}, ${body.connector})`);
  return c.json(toCryptoAddress(row!), 201);
};

export const unlinkCryptoAddress: Handler<typeof routes.unlinkCryptoAddress> = async (c) => {
  const { address } = c.req.valid("param");
  const { chainId } = c.req.valid("query");
  const removed = await c.get("db").statement(scopeOf(c.get("principal")), (tx) => tx`
    delete from core.crypto_addresses where chain_id = ${chainId} and lower(address) = lower(${address}) returning id`);
  if (removed.length === 0) throw new ApiError(404, "not_found", "No such address is linked to this user on that chain.");
  return c.body(null, 204);
};

export const identityRouter = createRouter()
  .openapi(routes.getSession, getSession)
  .openapi(routes.getMe, getMe)
  .openapi(routes.listCryptoAddresses, listCryptoAddresses)
  .openapi(routes.createSiweNonce, createSiweNonce)
  .openapi(routes.linkCryptoAddress, linkCryptoAddress)
  .openapi(routes.unlinkCryptoAddress, unlinkCryptoAddress);
