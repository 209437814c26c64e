import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Scalar } from "@scalar/hono-api-reference";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { ApiError, withDerivedErrorResponses } from "../../_shared/http/errors.ts";
import { precompressed } from "../../_shared/http/compression.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { apiUrl } from "../../_shared/http/public-urls.ts";
import { registerAppFunctions } from "./app-functions.ts";
import { FAVICON_SVG } from "./favicon.ts";
import { renderLlmsTxt } from "./llms-txt.ts";
import { withOptionalRequestDefaults } from "./request-defaults.ts";
import { registerWebhooks } from "./webhooks.ts";
import { VERIFIER_SECRET_HEADER } from "../../_shared/sponsorship/verifier-secret.ts";

const AUTHENTICATION = [
  "- REST v3 and /api/auth/get-session: header `x-api-key: <API_KEY>`. `Authorization: Bearer` is refused (401 `wrong_auth_scheme`).",
  "- One key works for every endpoint. Keys carry permissions such as `checkout:create`, `checkout:retry`, `sponsorship:write`;",
  "  a missing permission answers 403 `missing_permission`.",
  "- App-backend functions (/functions/v1/...): `Authorization: Bearer <SESSION_TOKEN>` (app session JWT).",
].join("\n");

const ERRORS = [
  'Every error has one body: `{ "error": true, "message", "code", "details"?, "timestamp", "request_id" }`.',
  "Statuses: 400 validation (`validation_failed`, `invalid_json`, `too_many_parameters`), 401 credentials, 403 permission,",
  "404 `not_found`, 405 `method_not_allowed`, 409 conflict, 410 `api_version_removed` (/api/v1, /api/v2),",
  "413 `payload_too_large`, 414 `uri_too_long`, 415 (`unsupported_media_type`, `unsupported_content_encoding`,",
  "`unsupported_charset`), 429 `rate_limited` with Retry-After, 431 `headers_too_large`, 503 not ready.",
].join("\n");

const LIMITS = [
  "- Request bodies: 1 MiB by default (BODY_LIMIT_BYTES), UTF-8 JSON without a content coding.",
  "- URL path and query: 8 KiB; headers: 16 KiB and 100 fields; query parameters: 100.",
  "- A validation answer lists at most 20 issues (`details.issues`, total in `details.issueCount`).",
  "- Event times: RFC 3339 with an offset, at most 3 fractional digits, 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z.",
  "- SIWE nonces: single use, 10 minutes, at most 10 live per user (then 429 with Retry-After).",
  "- An unknown or revoked API key is refused before the request is read.",
].join("\n");

const DESCRIPTION =
  "REST API v3 of the token-gated events service: identity, events, hubs, venues, NFT checkout and the sponsored-gas ledger. " +
  "Authenticate with the `x-api-key` header.";

/** One tag per resource; every operation carries one of these (tests/docs checks it). */
export const TAGS = [
  { name: "Operations", description: "Liveness and readiness probes; no credential." },
  { name: "Identity", description: "Who the key belongs to: the session, linked crypto addresses (SIWE), MCP grants and the MCP audit log." },
  { name: "Events", description: "Events with visibility and NFT access rules." },
  { name: "Reservations", description: "Reserving a place at an event, approval, cancellation, tickets and the access check." },
  { name: "Check-in", description: "The door: settings, staff, scans online and offline, counts, manifest, ticket keys, bracelets, attendance mints." },
  { name: "Hubs", description: "Hubs (groups and organisations) and their membership." },
  { name: "Venues", description: "Address autocomplete for venues." },
  { name: "NFT collections", description: "EVM NFT collections registered for access rules and checkout." },
  { name: "Sui collections", description: "Sui NFT collections published by the service." },
  { name: "Checkout", description: "NFT checkout sessions, their payments and the checkout.completed webhook's deliveries." },
  { name: "Sponsorship", description: "The sponsored-gas ledger: balances, deposits, usage, eligibility checks and the provider's verifier." },
  { name: "Gasless relays", description: "Gasless transactions relayed for venues and NFT collections." },
  { name: "App functions", description: "The check-in app's backend functions (/functions/v1/<name>), authenticated by the app session." },
];

/** @scalar/api-reference as pinned in package.json (tests/docs checks that they agree). */
export const SCALAR_VERSION = "1.72.1";
const SCALAR_CDN = `https://cdn.jsdelivr.net/npm/@scalar/api-reference@${SCALAR_VERSION}/dist/browser/standalone.js`;

/**
 * Scalar's controls that need its cloud and do nothing offline, turned off: the "Open API Client"
 * button (client.scalar.com), "Generate MCP" and its editor links, "Ask AI" (Agent Scalar) and the
 * developer toolbar (Configure, Share, Deploy), which Scalar shows on localhost by default.
 */
export const SCALAR_WITHOUT_CLOUD_SERVICES = {
  hideClientButton: true,
  mcp: { disabled: true },
  agent: { disabled: true },
  showDeveloperTools: "never",
} as const;

let scalarBundle: Uint8Array<ArrayBuffer> | null | undefined;
/** Scalar's standalone browser bundle from node_modules, read once; null where there is no node_modules. */
function readScalarBundle(): Uint8Array<ArrayBuffer> | null {
  if (scalarBundle === undefined) {
    try {
      // The package exports only its entry (dist/index.js); the browser bundle sits beside it.
      const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
      scalarBundle = new Uint8Array(readFileSync(join(dirname(entry), "browser", "standalone.js")));
    } catch {
      scalarBundle = null;
    }
  }
  return scalarBundle;
}

/** Where the docs page loads Scalar from: this service, or the CDN (same version) when the bundle is not at hand. */
export function scalarScriptUrl(publicApiRoot: string, bundle: Uint8Array | null): string {
  return bundle ? `${publicApiRoot.replace(/\/+$/, "")}/api/v3/docs/scalar.js?v=${SCALAR_VERSION}` : SCALAR_CDN;
}

/**
 * The api function's operations outside /api (/health, /ready, the local auth server's) sit under
 * its base, which on a functions root is not the root (<root>/api, http/public-urls.ts): those paths
 * name it as their server.
 */
function withApiFunctionServers<T extends { paths?: Record<string, { servers?: unknown[] } | undefined> }>(document: T, publicApiRoot: string): T {
  const base = apiUrl({ PUBLIC_API_ROOT: publicApiRoot }, "");
  if (base === publicApiRoot) return document;
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (item && !path.startsWith("/api/") && !path.startsWith("/functions/v1/")) item.servers ??= [{ url: base, description: "The api function" }];
  }
  return document;
}

/** Adds the documentation routes; call after every documented route is registered. */
export function registerDocs(app: OpenAPIHono<AppEnv>, publicApiRoot: string) {
  app.openAPIRegistry.registerComponent("securitySchemes", "CheckoutClientSecret", {
    type: "apiKey",
    in: "header",
    name: "X-Checkout-Client-Secret",
    description: "The checkout's client secret (from the create response or the checkout URL's fragment).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "SessionAuth", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "The check-in app's session token (Authorization: Bearer <SESSION_TOKEN>): the credential of the app-backend functions " +
      "(/functions/v1/...), and an alternative to x-api-key on the routes the check-in app calls: reservations, the door, gasless relays " +
      "and the sponsorship owner's routes (each lists SessionAuth in its `security`).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "ProviderVerifierSecret", {
    type: "apiKey",
    in: "header",
    name: VERIFIER_SECRET_HEADER,
    description: "The shared secret configured at the sponsored-transaction provider (SPONSORSHIP_VERIFIER_SECRETS).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKeyAuth", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "API key from the check-in dashboard or `npm run admin -- key create`.",
  });
  registerAppFunctions(app, publicApiRoot);
  registerWebhooks(app);
  let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  let llmsTxt: string | undefined;
  const openApiDocument = () => (document ??= withApiFunctionServers(withOptionalRequestDefaults(withDerivedErrorResponses(app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: {
      title: "Events, hubs, sponsorship and NFT checkout API",
      version: "3.0.0",
      description: DESCRIPTION,
      // The repository declares no open-source license: the API is offered under the operator's terms.
      license: { name: "Proprietary", url: `${publicApiRoot.replace(/\/+$/, "")}/api/v3/docs` },
      contact: { name: "API reference and support", url: `${publicApiRoot.replace(/\/+$/, "")}/api/v3/docs` },
    },
    tags: TAGS,
    servers: [{ url: publicApiRoot, description: "API root; REST v3 lives under /api/v3" }],
  }))), publicApiRoot));
  const llms = () => (llmsTxt ??= renderLlmsTxt(openApiDocument(), { authentication: AUTHENTICATION, errors: ERRORS, limits: LIMITS }));

  app.get("/api/v3/openapi", (c) => c.json(openApiDocument()));
  app.get("/api/v3/docs/openapi.json", (c) => c.json(openApiDocument()));
  // Served by the service itself, so the page works offline; `withDefaultFonts: false` keeps it off Scalar's font host.
  // Absolute under the public root: deployed, the API sits below /functions/v1/api, not at the host's root.
  app.get("/api/v3/docs", Scalar(() => ({
    url: `${publicApiRoot}/api/v3/openapi`,
    pageTitle: "API v3 reference",
    withDefaultFonts: false,
    cdn: scalarScriptUrl(publicApiRoot, readScalarBundle()),
    favicon: apiUrl({ PUBLIC_API_ROOT: publicApiRoot }, "/favicon.svg"),
    authentication: { preferredSecurityScheme: "ApiKeyAuth" },
    ...SCALAR_WITHOUT_CLOUD_SERVICES,
  })));
  for (const path of ["/favicon.svg", "/favicon.ico"]) {
    app.get(path, (c) => c.body(FAVICON_SVG, 200, { "content-type": "image/svg+xml", "cache-control": "public, max-age=86400" }));
  }
  app.get("/api/v3/docs/scalar.js", (c) => {
    const bundle = readScalarBundle();
    if (!bundle) throw new ApiError(404, "not_found", "Scalar's bundle is not installed here; the docs page loads it from the CDN.");
    // The page asks for ?v=<version>, so a new version is a new URL and this one never changes.
    return precompressed(c, bundle, { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=31536000, immutable" });
  });
  app.get("/llms.txt", (c) => c.text(llms())); // also /api/llms.txt, like every surface (http/public-urls.ts)
}
