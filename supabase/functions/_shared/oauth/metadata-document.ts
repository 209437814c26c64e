// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose
// client_id is an HTTPS URL is described by the JSON document at that URL. Fetching a URL a
// stranger chose is an SSRF risk, so the fetch is guarded:
//   * https only, no credentials, no fragment, a path, the default port or an explicit one;
//   * in production only public unicast addresses, checked on the address actually connected to
//     (the connection's own DNS lookup: the guard the webhook dispatcher uses too,
//     _shared/outbound/public-address-lookup.ts): no DNS-rebinding window;
//     outside production loopback is allowed too (over http as well), for local clients and tests;
//   * no redirects followed, a deadline (MCP_CIMD_TIMEOUT_MS) for the whole exchange and a 10 KiB
//     cap on the body, read as it arrives;
//   * the document must name its own URL as client_id, exactly.
// Documents are cached in mcp_oauth.clients for MCP_CIMD_CACHE_SECONDS.
import http from "node:http";
import https from "node:https";
import type { Config } from "../config.ts";
import { publicAddressLookup, refusedAddressLiteral, requestHostname } from "../outbound/public-address-lookup.ts";

export const METADATA_DOCUMENT_MAX_BYTES = 10 * 1024;

/** Why a document was refused: `message` is for the caller; `detail`, when set, only for the log. */
export class MetadataDocumentError extends Error {
  constructor(message: string, readonly detail?: string) {
    super(message);
  }
}

/**
 * What the caller is told of any failure to fetch: which addresses are refused, which ports answer,
 * how TLS or a status failed would map the service's network for them. The detail goes to the log.
 */
const NOT_FETCHED = "the client's metadata document could not be fetched";
const notFetched = (detail: string) => new MetadataDocumentError(NOT_FETCHED, detail);

export interface ClientMetadata {
  clientName: string;
  clientUri: string | null;
  redirectUris: string[];
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** Plain http to a loopback host as OAuth names them (RFC 8252 7.3): 127.0.0.1, [::1] or localhost. */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/** Whether a client_id is a metadata-document URL this deployment may fetch (else it is not one). */
export function isMetadataDocumentUrl(clientId: string, config: Config): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  return config.APP_ENV !== "production" && isLoopbackHttp(url);
}

/** Checks the URL's shape (draft section 3); throws why it is refused. */
function checkUrl(clientId: string, config: Config): URL {
  if (!isMetadataDocumentUrl(clientId, config)) throw new MetadataDocumentError("the client_id URL must be https");
  const url = new URL(clientId);
  if (url.username || url.password) throw new MetadataDocumentError("the client_id URL must not carry credentials");
  if (clientId.includes("#")) throw new MetadataDocumentError("the client_id URL must not have a fragment");
  if (url.pathname === "/" || url.pathname === "") throw new MetadataDocumentError("the client_id URL must have a path");
  if (/\/\.\.?(\/|$)/.test(url.pathname)) throw new MetadataDocumentError("the client_id URL must not have dot segments");
  return url;
}

/** Refuses a host any of whose addresses is not public (production): `refused <host> (<address>: <reason>)`. */
const publicOnlyLookup = publicAddressLookup({ describe: ({ hostname, address, reason }) => `refused ${hostname} (${address}: ${reason})` });

/** GETs the document with the guards above; resolves with its text. */
function fetchDocument(url: URL, config: Config): Promise<string> {
  const publicOnly = config.APP_ENV === "production";
  const hostname = requestHostname(url);
  const literalRefused = publicOnly ? refusedAddressLiteral(hostname) : null;
  if (literalRefused) return Promise.reject(notFetched(`the client_id host is not reachable (${literalRefused})`));
  return new Promise((resolve, reject) => {
    const fail = (error: MetadataDocumentError) => {
      request.destroy();
      reject(error);
    };
    // The size is the document's own (its host is one the guards allow), so the caller is told.
    const tooLarge = () => fail(new MetadataDocumentError(`the metadata document is larger than ${METADATA_DOCUMENT_MAX_BYTES} bytes`));
    const request = (url.protocol === "https:" ? https : http).request({
      protocol: url.protocol,
      hostname,
      port: url.port || undefined,
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers: { accept: "application/json", "user-agent": "events-mcp-authorization-server" },
      agent: false,
      lookup: publicOnly ? publicOnlyLookup : undefined,
    });
    const deadline = setTimeout(() => fail(notFetched(`no document within ${config.MCP_CIMD_TIMEOUT_MS} ms`)), config.MCP_CIMD_TIMEOUT_MS);
    request.on("response", (response) => {
      if (response.statusCode !== 200) {
        clearTimeout(deadline);
        return fail(notFetched(`the client_id URL answered ${response.statusCode} (redirects are not followed)`));
      }
      const declared = Number(response.headers["content-length"] ?? 0);
      if (declared > METADATA_DOCUMENT_MAX_BYTES) {
        clearTimeout(deadline);
        return tooLarge();
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > METADATA_DOCUMENT_MAX_BYTES) {
          clearTimeout(deadline);
          return tooLarge();
        }
        chunks.push(chunk);
      });
      response.on("end", () => {
        clearTimeout(deadline);
        resolve(Buffer.concat(chunks).toString("utf8"));
      });
      response.on("error", (error) => {
        clearTimeout(deadline);
        reject(notFetched(`reading the metadata document failed: ${error.message}`));
      });
    });
    request.on("error", (error) => {
      clearTimeout(deadline);
      reject(notFetched(`fetching the metadata document failed: ${error.message}`));
    });
    request.end();
  });
}

/** Fetches and validates the document of `clientId`; throws MetadataDocumentError with the reason. */
export async function fetchClientMetadata(clientId: string, config: Config, validRedirectUri: (uri: string) => boolean): Promise<ClientMetadata> {
  const url = checkUrl(clientId, config);
  const text = await fetchDocument(url, config);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new MetadataDocumentError("the metadata document is not JSON");
  }
  if (typeof document !== "object" || document === null || Array.isArray(document)) throw new MetadataDocumentError("the metadata document is not a JSON object");
  const d = document as Record<string, unknown>;
  if (d.client_id !== clientId) throw new MetadataDocumentError("the metadata document's client_id differs from its URL");
  const redirectUris = d.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length < 1 || redirectUris.length > 20 ||
      !redirectUris.every((u) => typeof u === "string" && validRedirectUri(u))) {
    throw new MetadataDocumentError("the metadata document needs 1 to 20 valid redirect_uris");
  }
  const method = d.token_endpoint_auth_method ?? "none";
  if (method !== "none") throw new MetadataDocumentError("only public clients (token_endpoint_auth_method none) are supported");
  if ("client_secret" in d) throw new MetadataDocumentError("a metadata document must not carry a client_secret");
  const name = typeof d.client_name === "string" && d.client_name.trim() ? d.client_name.trim().slice(0, 200) : url.host;
  const clientUri = typeof d.client_uri === "string" && /^https:\/\//.test(d.client_uri) ? d.client_uri.slice(0, 2048) : null;
  return { clientName: name, clientUri, redirectUris: redirectUris as string[] };
}
