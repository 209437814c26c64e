// Who a client_id is: a pre-registered client (MCP_PRE_REGISTERED_CLIENTS), a Client ID Metadata
// Document (an https client_id, fetched and cached), or a client that registered itself (DCR, here too).
import { randomToken } from "../auth/mcp-oauth.ts";
import type { Config } from "../config.ts";
import type { Database } from "../db/database.ts";
import { ApiError } from "../http/errors.ts";
import { OAuthError } from "./errors.ts";
import { fetchClientMetadata, isLoopbackHttp, isMetadataDocumentUrl, MetadataDocumentError } from "./metadata-document.ts";

export interface OAuthClient {
  clientId: string;
  clientName: string;
  clientUri: string | null;
  redirectUris: string[];
  kind: "pre_registered" | "registered" | "metadata_document";
}

export class ClientError extends Error {}

/**
 * A redirect URI a client may register: https, http on a loopback host (native apps, RFC 8252 7.3),
 * or a private-use scheme with a dot (com.example.app:/cb, RFC 8252 7.1). Never a fragment, never
 * javascript:, data: or plain http elsewhere.
 */
export function isValidRedirectUri(uri: string): boolean {
  if (uri.length > 2048 || uri.includes("#")) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return url.hostname !== "";
  if (url.protocol === "http:") return isLoopbackHttp(url);
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol);
}

/** A loopback redirect URI's scheme and host, and its port when it has one (RFC 8252 7.3 lets only the port vary). */
const LOOPBACK_AUTHORITY = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d{1,5})?(?=[/?]|$)/;

/** The URI exactly as written, minus the port of a loopback host; undefined for any other URI. */
function withoutLoopbackPort(uri: string): string | undefined {
  const authority = LOOPBACK_AUTHORITY.exec(uri);
  return authority ? `http://${authority[1]}${uri.slice(authority[0].length)}` : undefined;
}

/**
 * Whether `requested` is a registered redirect URI: the exact string, or for a loopback URI the exact
 * string on another port. Strings are compared as sent, never normalised (`/cb/../cb` is not `/cb`).
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const asked = withoutLoopbackPort(requested);
  return asked !== undefined && !requested.includes("#") && !requested.includes("@") &&
    registered.some((uri) => withoutLoopbackPort(uri) === asked);
}

/** Resolves a client, fetching its metadata document when it has one and the cache has expired. */
export async function resolveClient(config: Config, db: Database, clientId: string): Promise<OAuthClient> {
  if (!clientId || clientId.length > 2048) throw new ClientError("client_id is missing or too long");
  const preRegistered = config.MCP_PRE_REGISTERED_CLIENTS.find((c) => c.client_id === clientId);
  if (preRegistered) {
    return { clientId, clientName: preRegistered.client_name, clientUri: null, redirectUris: preRegistered.redirect_uris, kind: "pre_registered" };
  }
  const [stored] = await db.query((sql) => sql<{ kind: string; client_name: string; client_uri: string | null; redirect_uris: string[]; expires_at: Date | null }[]>`
    select * from mcp_oauth.client(${clientId})`);
  if (stored?.kind === "registered") {
    return { clientId, clientName: stored.client_name, clientUri: stored.client_uri, redirectUris: stored.redirect_uris, kind: "registered" };
  }
  if (!isMetadataDocumentUrl(clientId, config)) throw new ClientError("unknown client_id");
  if (stored && stored.expires_at && stored.expires_at.getTime() > Date.now()) {
    return { clientId, clientName: stored.client_name, clientUri: stored.client_uri, redirectUris: stored.redirect_uris, kind: "metadata_document" };
  }
  let metadata;
  try {
    metadata = await fetchClientMetadata(clientId, config, isValidRedirectUri);
  } catch (error) {
    if (error instanceof MetadataDocumentError) {
      if (error.detail) console.error(`client metadata document ${clientId.slice(0, 200)}: ${error.detail}`);
      throw new ClientError(error.message);
    }
    throw error;
  }
  const expiresAt = new Date(Date.now() + config.MCP_CIMD_CACHE_SECONDS * 1000);
  await db.query((sql) => sql`select mcp_oauth.cache_metadata_document(${clientId}, ${metadata.clientName}, ${metadata.clientUri},
    ${metadata.redirectUris}::text[], ${expiresAt})`);
  return { clientId, ...metadata, kind: "metadata_document" };
}

/** What people are shown of a redirect URI: its host (a private-use scheme's whole target otherwise). */
export function hostOf(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || `${url.protocol}${url.pathname}`;
  } catch {
    return uri;
  }
}

/** RFC 7591 3.2.1's answer: the client as registered. */
export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name: string;
  client_uri?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: ["code"];
  token_endpoint_auth_method: "none";
}

/**
 * Dynamic client registration (RFC 7591), when MCP_DYNAMIC_REGISTRATION allows it: public clients
 * only (no secret), the code flow only, redirect URIs as isValidRedirectUri accepts them. `metadata`
 * is the request's JSON body (null when it was not JSON). Registrations are limited per IP
 * (mcp_oauth.register_client).
 */
export async function registerClient(db: Database, config: Config, metadata: unknown, ip: string): Promise<RegisteredClient> {
  if (!config.MCP_DYNAMIC_REGISTRATION) {
    throw new OAuthError(404, "registration_not_supported", "dynamic client registration is off; use a client ID metadata document");
  }
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw new OAuthError(400, "invalid_client_metadata", "the body must be a JSON object");
  }
  const body = metadata as Record<string, unknown>;
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length < 1 || uris.length > 20 || !uris.every((u) => typeof u === "string" && isValidRedirectUri(u))) {
    throw new OAuthError(400, "invalid_redirect_uri", "1 to 20 redirect_uris: https, http on a loopback host, or a private-use scheme; no fragments");
  }
  const method = body.token_endpoint_auth_method ?? "none";
  if (method !== "none") throw new OAuthError(400, "invalid_client_metadata", "only public clients: token_endpoint_auth_method must be none");
  const grantTypes = body.grant_types ?? ["authorization_code", "refresh_token"];
  if (!Array.isArray(grantTypes) || !grantTypes.every((g) => g === "authorization_code" || g === "refresh_token")) {
    throw new OAuthError(400, "invalid_client_metadata", "grant_types may be authorization_code and refresh_token");
  }
  const responseTypes = body.response_types ?? ["code"];
  if (!Array.isArray(responseTypes) || !responseTypes.every((r) => r === "code")) {
    throw new OAuthError(400, "invalid_client_metadata", "response_types may only be code");
  }
  const name = typeof body.client_name === "string" && body.client_name.trim() ? body.client_name.trim().slice(0, 200) : hostOf(uris[0] as string);
  const clientUri = typeof body.client_uri === "string" && /^https:\/\//.test(body.client_uri) && body.client_uri.length <= 2048 ? body.client_uri : null;
  const clientId = randomToken("mcc_").slice(0, 36);
  try {
    await db.query((sql) => sql`select mcp_oauth.register_client(${clientId}, ${name}, ${clientUri}, ${uris as string[]}::text[],
      ${ip}, ${config.MCP_REGISTRATIONS_PER_IP}, 3600)`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) throw new OAuthError(429, "rate_limited", error.message, error.headers ?? {});
    throw error;
  }
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    client_name: name,
    ...(clientUri ? { client_uri: clientUri } : {}),
    redirect_uris: uris,
    grant_types: grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}
