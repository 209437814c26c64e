// How OAuth clients find the authorization server: the protected resource's metadata (RFC 9728)
// and the authorization server's (RFC 8414, and OpenID Connect Discovery's form of it).
import { issuerOf, MCP_SCOPES, mcpResourceOf } from "../../_shared/auth/mcp-oauth.ts";
import type { Config } from "../../_shared/config.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { apiUrl } from "../../_shared/http/public-urls.ts";
import type { C } from "./http.ts";

function protectedResourceMetadata(config: Config) {
  return {
    resource: mcpResourceOf(config),
    authorization_servers: [issuerOf(config)],
    scopes_supported: MCP_SCOPES,
    bearer_methods_supported: ["header"],
    resource_name: "Events public MCP",
    resource_documentation: apiUrl(config, "/api/v3/docs"),
  };
}

function authorizationServerMetadata(config: Config) {
  const issuer = issuerOf(config);
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    ...(config.MCP_DYNAMIC_REGISTRATION ? { registration_endpoint: `${issuer}/oauth/register` } : {}),
    scopes_supported: MCP_SCOPES,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    service_documentation: apiUrl(config, "/api/v3/docs"),
  };
}

export const protectedResource = (c: C) => c.json(protectedResourceMetadata(c.get("config")));

export const authorizationServer = (c: C) => c.json(authorizationServerMetadata(c.get("config")));

/**
 * The same metadata at OpenID Connect Discovery's path, with the members that form requires. An
 * issuer with a path (Supabase's .../functions/v1/api) has RFC 8414's document at the host's root,
 * outside the function; MCP clients then try <issuer>/.well-known/openid-configuration, which lands
 * inside it. No ID tokens are issued (no `openid` scope), hence no signing algorithms and no keys.
 */
export const openIdConfiguration = (c: C) => {
  const metadata = authorizationServerMetadata(c.get("config"));
  return c.json({
    ...metadata,
    jwks_uri: `${metadata.issuer}/oauth/jwks.json`,
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [],
  });
};

/** The keys of ID tokens: none (access tokens are checked by this service alone). */
export const jwks = (c: C) => c.json({ keys: [] });

/** RFC 8414 3.1: an issuer with a path has its metadata at /.well-known/oauth-authorization-server/<path>. */
export function authorizationServerAtIssuerPath(c: C): Response {
  const config = c.get("config");
  const path = new URL(issuerOf(config)).pathname.replace(/\/+$/, "");
  if (path === "" || c.req.path !== `/.well-known/oauth-authorization-server${path}`) {
    throw new ApiError(404, "not_found", `No route for GET ${c.req.path}.`);
  }
  return c.json(authorizationServerMetadata(config));
}
