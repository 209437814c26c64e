// Who a client_id is: a pre-registered client (MCP_PRE_REGISTERED_CLIENTS), a Client ID Metadata
// Document (an https client_id, fetched and cached), or a client that registered itself (DCR).
import type { Config } from "../../_shared/config.ts";
import type { Database } from "../../_shared/db/database.ts";
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

/**
 * Exact matching (OAuth 2.1 2.3.1), except that a loopback redirect URI matches on any port: a
 * native client listens on whatever port is free (RFC 8252 7.3). Scheme, host, path and query
 * must still be identical.
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  let asked: URL;
  try {
    asked = new URL(requested);
  } catch {
    return false;
  }
  if (!isLoopbackHttp(asked) || requested.includes("#")) return false;
  return registered.some((uri) => {
    const known = new URL(uri);
    return isLoopbackHttp(known) && known.hostname === asked.hostname && known.pathname === asked.pathname &&
      known.search === asked.search && known.username === "" && asked.username === "" && asked.password === "";
  });
}

/** Resolves a client, fetching its metadata document when it has one and the cache has expired. */
export async function resolveClient(config: Config, db: Database, clientId: string): Promise<OAuthClient> {
  if (!clientId || clientId.length > 2048) throw new ClientError("client_id is missing or too long");
  const preRegistered = config.MCP_PRE_REGISTERED_CLIENTS.find((c) => c.client_id === clientId);
  if (preRegistered) {
    return { clientId, clientName: preRegistered.client_name, clientUri: null, redirectUris: preRegistered.redirect_uris, kind: "pre_registered" };
  }
  const [stored] = await db.sql<{ kind: string; client_name: string; client_uri: string | null; redirect_uris: string[]; expires_at: Date | null }[]>`
    select * from mcp_oauth.client(${clientId})`;
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
    if (error instanceof MetadataDocumentError) throw new ClientError(error.message);
    throw error;
  }
  const expiresAt = new Date(Date.now() + config.MCP_CIMD_CACHE_SECONDS * 1000);
  await db.sql`select mcp_oauth.cache_metadata_document(${clientId}, ${metadata.clientName}, ${metadata.clientUri},
    ${metadata.redirectUris}::text[], ${expiresAt})`;
  return { clientId, ...metadata, kind: "metadata_document" };
}
