import { z } from "zod";
import { parseIpRange } from "./net/ip-address.ts";
import type { Environment } from "./platform/runtime.ts";
import { suiNetworksSchema } from "./sui/network.ts";
import { suiPrivateKeySchema } from "./sui/signer.ts";
import { parseTicketSigningKeys } from "./checkin/ticket-token.ts";
import { parseLocalAuthSigningKey } from "./app-auth/signing-key.ts";
import { externalMcpServersSchema } from "./mcp/external-servers.ts";

const commaList = z
  .string()
  .transform((s) => s.split(",").map((v) => v.trim()).filter(Boolean));

const optionalUrl = z.string().url().optional();

const evmChainsSchema = z.array(z.object({
  chainId: z.number().int().positive(),
  rpcUrl: z.string().url(),
  confirmations: z.number().int().min(0).max(1000).default(1),
  // Sponsorship: where sponsors send deposits on this chain, and EntryPoints to accept
  // besides the canonical v0.6/v0.7/v0.8 ones (a local chain's own deployment).
  sponsorshipVault: z.string().regex(/^0x[0-9a-fA-F]{40}$/).optional(),
  extraEntryPoints: z.array(z.string().regex(/^0x[0-9a-fA-F]{40}$/)).max(10).default([]),
}).strict());

/** Requests per user per minute on the rate-limited sponsorship operations (SPEC 8). */
const sponsorshipRateLimitsSchema = z.object({
  check: z.number().int().min(1).max(1_000_000).default(120),
  depositsRecord: z.number().int().min(1).max(1_000_000).default(30),
  usageRecord: z.number().int().min(1).max(1_000_000).default(600),
}).strict();

/** MCP_PRE_REGISTERED_CLIENTS: public clients known without registration (exact redirect URIs). */
const preRegisteredClientsSchema = z.array(z.object({
  client_id: z.string().regex(/^[A-Za-z0-9._~-]{1,200}$/),
  client_name: z.string().min(1).max(200),
  redirect_uris: z.array(z.string().url()).min(1).max(20),
}).strict()).max(100);

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A setting written as JSON (default `fallback`), validated by `schema`; `shape` names it in the error. */
const aesKey = z.string().regex(/^[0-9a-fA-F]{32}$/, "16 bytes, hex").transform((hex) => Uint8Array.from(hex.match(/../g)!, (byte) => parseInt(byte, 16)));
const sunKeysSchema = z.object({ metaReadKey: aesKey, fileReadKey: aesKey }).strict();

function jsonSetting<T extends z.ZodTypeAny>(schema: T, fallback: string, shape: string) {
  return z.string().default(fallback).transform((text, ctx): z.infer<T> => {
    const parsed = schema.safeParse(safeJson(text));
    if (!parsed.success) {
      ctx.addIssue({ code: "custom", message: `${shape}: ${parsed.error.issues[0]?.message}` });
      return z.NEVER;
    }
    return parsed.data;
  });
}

/**
 * Outside production, without SECRETS_ENCRYPTION_KEY, secrets are sealed with this published key, so
 * `npm start` and the tests need no setup; production refuses to start without a key of its own.
 */
export const DEVELOPMENT_ENCRYPTION_KEY = "ZGV2ZWxvcG1lbnQta2V5LW5vdC1mb3ItcHJvZHVjdGk=";

/** Published, like the key above: outside production only, and refused in production. */
export const DEVELOPMENT_TOKEN_SECRET = "development-mcp-token-secret-not-for-production";

/** Every environment variable the service reads. docs/configuration.md lists the same set (tests/docs/configuration.test.ts). */
const configShape = z.object({
  // The service's own connection: the `api_gateway` login role, which cannot bypass RLS and can
  // only switch to the request roles (migration 20261123000800_core.sql, docs/deployment.md).
  GATEWAY_DATABASE_URL: z.string().min(1),
  // About twice the database's CPU cores: connections beyond that only add context switches (see
  // docs/performance.md). A remote database, where round trips dominate, wants more.
  DB_POOL_MAX: z.coerce.number().int().min(1).max(500).default(4),
  // Supabase's transaction pooler (port 6543) cannot keep prepared statements.
  DB_PREPARE: z.enum(["true", "false"]).default("true").transform((v) => v === "true"),
  // A database that does not accept a connection within this is down: requests get 503
  // database_unavailable until it does (db/availability.ts).
  DB_CONNECT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(60).default(5),
  // The server cancels a statement of the service running longer (503 database_timeout); 0 never.
  DB_STATEMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(0).max(3600).default(15),
  APP_ENV: z.enum(["development", "test", "production"]).default("development"),
  // The root every URL the service writes is built from (http/public-urls.ts): a host root, or Supabase's
  // functions root https://<ref>.supabase.co/functions/v1. Without a trailing slash.
  PUBLIC_API_ROOT: z.string().url().default("http://127.0.0.1:54321").transform((root) => root.replace(/\/+$/, "")),
  CORS_ALLOWED_ORIGINS: commaList.default(["*"]),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024),
  // The proxies whose X-Forwarded-For is believed, as IP addresses and CIDR ranges (http/client-address.ts).
  // Empty: the connection's peer is the client. On Supabase: 0.0.0.0 (docs/deployment.md).
  TRUSTED_PROXIES: commaList.default([]).transform((entries, ctx) => {
    const ranges = entries.map(parseIpRange);
    const wrong = ranges.filter((range) => typeof range === "string");
    if (wrong.length > 0) {
      ctx.addIssue({ code: "custom", message: `${wrong.join("; ")} (IP addresses and CIDR ranges, comma-separated)` });
      return z.NEVER;
    }
    return ranges.filter((range) => typeof range !== "string");
  }),
  // App sessions (auth/middleware.ts): Supabase Auth's tokens, by the project's legacy HS256 secret
  // and by its JWKS (ES256/RS256 keys named by `kid`), from the issuer <project>/auth/v1.
  JWT_SECRET: z.string().min(32).optional(),
  JWT_JWKS_URL: optionalUrl,
  JWT_ISSUER: z.string().optional(),
  JWT_AUDIENCE: z.string().default("authenticated"),
  // ---- The local auth server: Supabase Auth's e-mail code API on /auth/v1 (api/local-auth) ----
  // Off unless set: on a Supabase project Supabase Auth signs the app's sessions. npm start turns it on.
  LOCAL_AUTH_ENABLED: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  // The private ES256 JWK ({"kty": "EC", "crv": "P-256", "x", "y", "d", "kid"}) its access tokens are
  // signed with; the gateway accepts them by this key's kid. Never logged. Required when enabled.
  LOCAL_AUTH_SIGNING_KEY: z.string().optional().transform((value, ctx) => {
    if (value === undefined || value.trim() === "") return undefined;
    try {
      return parseLocalAuthSigningKey(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  }),
  // Access tokens (Supabase's default: an hour); refresh tokens, rotated on every use, each this long.
  LOCAL_AUTH_ACCESS_TOKEN_SECONDS: z.coerce.number().int().min(60).max(86_400).default(3600),
  LOCAL_AUTH_REFRESH_TOKEN_SECONDS: z.coerce.number().int().min(3600).max(90 * 86_400).default(30 * 86_400),
  SIWE_DOMAINS: commaList.default(["localhost:54321", "127.0.0.1:54321"]),
  ENABLE_BENCH_ROUTES: z.enum(["true", "false"]).default("false").transform((v) => v === "true"),
  // Venue autocomplete: the project's own places table (postgres) or a Photon / Nominatim server.
  GEOCODER_PROVIDER: z.enum(["postgres", "photon", "nominatim"]).default("postgres"),
  GEOCODER_URL: optionalUrl,
  GEOCODER_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3000),
  // The local gateway only (Deno.serve has no such timeout; Supabase's front serves a deployment):
  // how long a connection may wait for a complete request head, after it opens and after each
  // response. 0 serves with Deno.serve alone: no such timeout, and no relay in front (see runtime.ts).
  HEADER_TIMEOUT_MS: z.coerce.number().int().refine((ms) => ms === 0 || (ms >= 100 && ms <= 600_000), "0, or 100 to 600000")
    .default(10_000),
  // Checkout. 32 random bytes, base64: seals client and webhook secrets (crypto/secret-box.ts).
  SECRETS_ENCRYPTION_KEY: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, "32 bytes, base64").optional(),
  // Where the hosted checkout page is served; the gateway serves it at the API root by default.
  CHECKOUT_UI_URL: z.string().url().optional().transform((url) => url?.replace(/\/+$/, "")),
  // The EVM chains the service reads: [{"chainId": 8453, "rpcUrl": "https://...", "confirmations": 3}].
  EVM_CHAINS: jsonSetting(evmChainsSchema, "[]", "a JSON array of {chainId, rpcUrl, confirmations}"),
  // The Sui networks the service publishes collections on and reads passes from:
  // [{"network": "sui:testnet", "grpcUrl": "https://fullnode.testnet.sui.io:443", "packageId": "0x..."}], the
  // packageId being the event_pass Move package published there (contracts/sui/event_pass).
  SUI_NETWORKS: jsonSetting(suiNetworksSchema, "[]", "a JSON array of {network, grpcUrl, packageId}"),
  // The service's Sui key (suiprivkey1..., Ed25519) that signs and pays for collection publishes; never
  // logged. Unset: publishing answers 503 sui_not_configured. Hold gas money only.
  SUI_PRIVATE_KEY: suiPrivateKeySchema.optional(),
  // ---- Check-in ----
  // The keys of QR tickets: one private Ed25519 JWK ({"kty": "OKP", "crv": "Ed25519", "x", "d", "kid"}) or
  // an array whose first private key signs and whose others still verify (a rotation). Never logged.
  // Unset: tickets, manifests and QR scans answer 503 tickets_not_configured.
  TICKET_SIGNING_KEYS: z.string().optional().transform((value, ctx) => {
    if (value === undefined || value.trim() === "") return undefined;
    try {
      return parseTicketSigningKeys(value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  }),
  // NTAG 424 DNA bracelets: the SDM meta read key and file read key (16 bytes each, hex),
  // {"metaReadKey": "...", "fileReadKey": "..."}. Never logged. Unset: SUN scans answer 503 sun_not_configured.
  BRACELET_SUN_KEYS: jsonSetting(sunKeysSchema.nullable(), "null", "a JSON object of {metaReadKey, fileReadKey}, 32 hex digits each"),
  // The service's key (0x + 64 hex) that signs dynamic-price mint vouchers; never logged.
  SERVICE_SIGNER_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits").optional(),
  // The local gateway (scripts/gateway.ts) only: run the checkout webhook dispatcher in-process
  // (LISTEN/NOTIFY plus a sweep). On by default so `npm start` delivers webhooks; turn it off where
  // another process or pg_cron drains the outbox (replicas may also all keep it on: claims are exclusive).
  WEBHOOK_DISPATCH: z.enum(["true", "false"]).default("true").transform((v) => v === "true"),
  // The local gateway (scripts/gateway.ts) only: seconds between passes of the checkout reconciler
  // (_shared/checkout/reconciler.ts), which completes checkouts whose page reported a transaction
  // and closed before confirming; 0 turns it off (where another process runs it). Passes may run on
  // several replicas: completing twice is refused by the SQL, only the RPC calls are repeated.
  CHECKOUT_RECONCILE_SECONDS: z.coerce.number().int().min(0).max(3600).default(15),
  // The jobs function (Supabase, where no process stays up): the secret pg_cron's pg_net call
  // presents in x-jobs-secret. Unset: the function refuses every call (503).
  JOBS_SECRET: z.string().min(32, "at least 32 characters").optional(),
  // The secrets the sponsored-transaction provider's verifier calls present in
  // x-service-provider-verifier-secret, comma-separated: two during a rotation. Unset: verify refuses (503).
  SPONSORSHIP_VERIFIER_SECRETS: z.string().optional().transform((text, ctx) => {
    const secrets = (text ?? "").split(",").map((s) => s.trim()).filter(Boolean);
    if (secrets.length > 2 || secrets.some((s) => s.length < 32)) {
      ctx.addIssue({ code: "custom", message: "one or two comma-separated secrets of at least 32 characters" });
      return z.NEVER;
    }
    return secrets;
  }),
  // Gasless relays: the relayer wallet's key (0x + 64 hex) that signs the relayed
  // transactions on every EVM_CHAINS chain. Never logged nor put in an error; read once into a viem
  // account (_shared/relays/relayer.ts). Unset: both gasless routes answer 503
  // relayer_not_configured. A KMS or remote signer replaces it behind the RelayerSigner interface
  // (useRelayerSigner). The wallet must hold gas money only and grant no token approvals: it is
  // msg.sender of every relayed call.
  RELAYER_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/, "0x and 64 hex digits").optional(),
  // The local gateway (scripts/gateway.ts) only: seconds between relayer recovery passes (receipts
  // charged once, persisted transactions broadcast again, stuck ones replaced); 0 turns it off
  // (where another process runs it). A pass also runs when the gateway starts.
  RELAYER_LOOP_SECONDS: z.coerce.number().int().min(0).max(3600).default(5),
  // A relayed transaction not mined this many seconds after its latest attempt is replaced: same
  // nonce, fees raised by at least 12.5 %, within the sponsor's hold.
  RELAYER_REPLACE_AFTER_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  // Per-user limits per minute: {"check": 120, "depositsRecord": 30, "usageRecord": 600}.
  SPONSORSHIP_RATE_LIMITS: jsonSetting(sponsorshipRateLimitsSchema, "{}", "a JSON object of {check, depositsRecord, usageRecord}"),
  // MCP endpoints: requests per minute per token (an API key on /mcp/backend, an OAuth
  // grant on the public endpoint), counted in PostgreSQL (mcp.take_rate_limit; mcp_oauth.access_allowed on /mcp): 429 rate_limited.
  MCP_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(120),
  // ---- Public MCP endpoint's OAuth authorization server (api/oauth, auth/mcp-oauth.ts) ----
  // The SMTP relay that sends sign-in codes: smtp://user:pass@host:587 (STARTTLS when offered) or
  // smtps://host:465. Unset: the sign-in page answers 503 mail_not_configured. Required in production.
  SMTP_URL: z.string().regex(/^smtps?:\/\//, "smtp:// or smtps:// URL").optional(),
  // The From of sign-in mails. Required in production.
  MAIL_FROM: z.string().min(3).max(320).optional(),
  // The authorization server's issuer (RFC 8414 `iss`), without a trailing slash. Default: the api function's base.
  MCP_ISSUER: z.string().url().optional().transform((url) => url?.replace(/\/+$/, "")),
  // HS256 key of access tokens, authorization requests and CSRF tokens, and the HMAC key of sign-in
  // codes at rest (32+ characters). Outside production a published development key; required in production.
  MCP_TOKEN_SECRET: z.string().min(32, "at least 32 characters").optional(),
  // Access tokens: short-lived, bound to the public MCP endpoint's URL (their `aud`).
  MCP_ACCESS_TOKEN_SECONDS: z.coerce.number().int().min(60).max(3600).default(600),
  // Refresh tokens: rotated on every use; each new one lives this long.
  MCP_REFRESH_TOKEN_SECONDS: z.coerce.number().int().min(3600).max(90 * 86_400).default(30 * 86_400),
  // E-mail sign-in: a code's lifetime, tries per code, and codes per (address, IP) / requests per IP
  // per 15 minutes: one client's requests never consume another's.
  MCP_SIGN_IN_CODE_SECONDS: z.coerce.number().int().min(60).max(3600).default(600),
  MCP_SIGN_IN_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(5),
  MCP_SIGN_IN_CODES_PER_ADDRESS: z.coerce.number().int().min(1).max(1000).default(5),
  MCP_SIGN_IN_REQUESTS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(30),
  // At most one code per address per this many seconds, whoever asks (Supabase Auth's one a minute).
  MCP_SIGN_IN_RESEND_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  // Wrong codes per address and day: the guesses an address can take (50 of a million codes by default).
  MCP_SIGN_IN_WRONG_CODES_PER_DAY: z.coerce.number().int().min(1).max(1000).default(50),
  // How long the sign-in pages' own session (a cookie) lasts.
  MCP_BROWSER_SESSION_SECONDS: z.coerce.number().int().min(300).max(30 * 86_400).default(86_400),
  // Clients known without registration: [{"client_id": "...", "client_name": "...", "redirect_uris": ["..."]}].
  MCP_PRE_REGISTERED_CLIENTS: jsonSetting(preRegisteredClientsSchema, "[]", "a JSON array of {client_id, client_name, redirect_uris}"),
  // Dynamic Client Registration (RFC 7591) for clients without a metadata document; registrations per IP per hour.
  MCP_DYNAMIC_REGISTRATION: z.enum(["true", "false"]).default("true").transform((v) => v === "true"),
  MCP_REGISTRATIONS_PER_IP: z.coerce.number().int().min(1).max(100_000).default(20),
  // Client ID Metadata Documents: fetch deadline and how long a fetched document is cached.
  MCP_CIMD_TIMEOUT_MS: z.coerce.number().int().min(100).max(10_000).default(3000),
  MCP_CIMD_CACHE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(3600),
  // ---- App-backend functions (supabase/functions/<name>; docs/check-in-app.md) ----
  // Requests per person per minute of each function, counted in PostgreSQL (core.take_rate_limit):
  // 429 rate_limited with Retry-After.
  CHAT_WITH_ASSISTANT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(20),
  TRANSCRIBE_AUDIO_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(10),
  DISCOVER_MCP_CAPABILITIES_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(6),
  RENAME_CHAT_FOR_EVENT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(10),
  // External MCP servers whose tools the assistant may offer besides the service's own:
  // [{"name": "weather", "url": "https://mcp.example/mcp", "headers": {"authorization": "Bearer ..."}}].
  // Headers are never logged nor answered. Production: https and public addresses only.
  ASSISTANT_MCP_SERVERS: jsonSetting(externalMcpServersSchema, "[]", "a JSON array of {name, url, headers}"),
  // How long one try at an external server (connect and list its tools) may take; three tries at most.
  ASSISTANT_MCP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  // The assistant's model provider: any server speaking OpenAI's chat completions API, reached with
  // the `openai` client. Unset key: chat-with-assistant, transcribe-audio and rename-chat-for-event answer 503
  // provider_not_configured. Never logged.
  ASSISTANT_API_KEY: z.string().min(1).optional(),
  ASSISTANT_BASE_URL: z.string().url().default("https://api.openai.com/v1").transform((url) => url.replace(/\/+$/, "")),
  // The models the app may name in `model`, the first the default; another: 400 unknown_model.
  ASSISTANT_MODELS: commaList.pipe(z.array(z.string().max(200)).min(1, "at least one model")).default(["gpt-4o-mini"]),
  // The names the app may send as `aiProvider` (labels of the one endpoint above, for example a gateway
  // that routes several vendors), the first the default; another: 400 unknown_provider.
  ASSISTANT_PROVIDERS: commaList.pipe(z.array(z.string().max(50)).min(1, "at least one provider")).default(["openai"]),
  // How long the provider may take to answer a try (to its response headers), and to send the next
  // piece of a streamed answer: past it the try fails (retried before the stream starts) or the answer
  // ends incomplete.
  ASSISTANT_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  ASSISTANT_KEEPALIVE_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
  // The model transcribe-audio sends the audio to (OpenAI's audio transcriptions API).
  TRANSCRIBE_AUDIO_MODEL: z.string().min(1).max(200).default("whisper-1"),
  // The model rename-chat-for-event asks for a room's name (one short chat completion).
  RENAME_CHAT_FOR_EVENT_MODEL: z.string().min(1).max(200).default("gpt-4o-mini"),
});

/** The names of those variables: what `.env.example` lists. */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(configShape.shape);

const configSchema = configShape.superRefine((config, ctx) => {
  if (config.APP_ENV === "production" && !config.SECRETS_ENCRYPTION_KEY) {
    ctx.addIssue({ code: "custom", path: ["SECRETS_ENCRYPTION_KEY"], message: "required in production" });
  }
  if (config.APP_ENV === "production" && config.ENABLE_BENCH_ROUTES) {
    ctx.addIssue({ code: "custom", path: ["ENABLE_BENCH_ROUTES"], message: "the benchmark routes are never served in production" });
  }
  for (const name of ["SMTP_URL", "MAIL_FROM", "MCP_TOKEN_SECRET"] as const) {
    if (config.APP_ENV === "production" && !config[name]) ctx.addIssue({ code: "custom", path: [name], message: "required in production" });
  }
  // Anyone can read the published development values in this repository: a deployment using one
  // would seal secrets and sign tokens that anyone can open or forge.
  const published = { SECRETS_ENCRYPTION_KEY: DEVELOPMENT_ENCRYPTION_KEY, MCP_TOKEN_SECRET: DEVELOPMENT_TOKEN_SECRET } as const;
  for (const [name, value] of Object.entries(published) as Array<[keyof typeof published, string]>) {
    if (config.APP_ENV === "production" && config[name] === value) {
      ctx.addIssue({ code: "custom", path: [name], message: "the published development value is refused in production; set a secret of your own" });
    }
  }
  if (config.LOCAL_AUTH_ENABLED && !config.LOCAL_AUTH_SIGNING_KEY) {
    ctx.addIssue({ code: "custom", path: ["LOCAL_AUTH_SIGNING_KEY"], message: "required when LOCAL_AUTH_ENABLED is true" });
  }
  for (const server of config.ASSISTANT_MCP_SERVERS) {
    if (config.APP_ENV === "production" && new URL(server.url).protocol !== "https:") {
      ctx.addIssue({ code: "custom", path: ["ASSISTANT_MCP_SERVERS"], message: `${server.name}: https only in production` });
    }
  }
  if (config.GEOCODER_PROVIDER !== "postgres" && !config.GEOCODER_URL) {
    ctx.addIssue({ code: "custom", path: ["GEOCODER_URL"], message: `required when GEOCODER_PROVIDER is ${config.GEOCODER_PROVIDER}` });
  }
});

export type Config = z.infer<typeof configSchema>;

function parsed<T>(result: z.ZodSafeParseResult<T>): T {
  if (!result.success) {
    const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new Error(`invalid configuration: ${problems}`);
  }
  return result.data;
}

export function loadConfig(env: Environment): Config {
  return parsed(configSchema.safeParse(env));
}

const localAuthShape = configShape.pick({
  PUBLIC_API_ROOT: true, LOCAL_AUTH_SIGNING_KEY: true, LOCAL_AUTH_ACCESS_TOKEN_SECONDS: true, LOCAL_AUTH_REFRESH_TOKEN_SECONDS: true,
});
export type LocalAuthConfig = z.infer<typeof localAuthShape>;

/** The local auth server's settings alone, for the admin CLI, which mints its sessions without running the service. */
export function loadLocalAuthConfig(env: Environment): LocalAuthConfig {
  return parsed(localAuthShape.safeParse(env));
}
