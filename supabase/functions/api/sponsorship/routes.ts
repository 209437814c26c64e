// The sponsored-gas ledger's routes (SPEC 4.5); the shapes are _shared/sponsorship/schemas.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { refuseBrowserRequests, requireApiKey, requireApiKeyOrSession, requirePermission } from "../../_shared/auth/middleware.ts";
import { errorResponses } from "../../_shared/http/errors.ts";
import { pageSchema } from "../../_shared/http/listing.ts";
import { apiKeySecurity, jsonContent } from "../../_shared/http/openapi.ts";
import * as sponsorship from "../../_shared/sponsorship/operations.ts";
import {
  BalanceSchema, CANCEL_REFUSED_FIELDS, CancelResultSchema, CancelSchema, CheckResultSchema, CheckSchema, CompleteResultSchema, CompleteSchema,
  DepositSchema, PendingSchema, ProviderVerifyResultSchema, ProviderVerifySchema, RecordDepositSchema, RecordUsageSchema, SaveSettingsSchema,
  SettingsSchema, SponsorListQuery, SponsorQuery, UsageSchema,
} from "../../_shared/sponsorship/schemas.ts";
import { chainUnavailableResponse } from "../../_shared/chain/responses.ts";
import { requireVerifierSecret } from "../../_shared/sponsorship/verifier-secret.ts";

const TAG = "Sponsorship";
// SPEC 5.8: the owner (API key) or the app session.
const ownerOrSession = [...apiKeySecurity, { SessionAuth: [] }];

function reads<Q extends z.ZodObject, S extends z.ZodTypeAny>(operationId: string, path: string, summary: string, schema: S, query: Q) {
  return createRoute({
    operationId,
    method: "get",
    path: `/api/v3/sponsorship/${path}`,
    tags: [TAG],
    summary,
    description: "Only for the owner of the sponsor wallet (one of your linked addresses on `chainId`); another wallet answers 404 `sponsor_not_found`.",
    security: ownerOrSession,
    middleware: [requireApiKeyOrSession] as const,
    request: { query },
    responses: { 200: { description: summary, ...jsonContent(schema) }, ...errorResponses(400, 401, 404) },
  });
}

export const getBalance = reads("getSponsorshipBalance", "balance", "The sponsor's balance", BalanceSchema, SponsorQuery);
export const listUsage = reads("listSponsorshipUsage", "usage", "The sponsor's usage, newest first", pageSchema(UsageSchema, "SponsorshipUsagePage"), SponsorListQuery);
export const listDeposits = reads("listSponsorshipDeposits", "deposits", "The sponsor's verified deposits, newest first", pageSchema(DepositSchema, "SponsorshipDepositPage"), SponsorListQuery);
export const getSettings = reads("getSponsorshipSettings", "settings", "The sponsor's settings (defaults when never saved)", SettingsSchema, SponsorQuery);

type Responses = NonNullable<Parameters<typeof createRoute>[0]["responses"]>;

function post<B extends z.ZodTypeAny, R extends Responses>(operationId: string, path: string, summary: string, description: string, body: B, responses: R) {
  return createRoute({
    operationId,
    method: "post",
    path: `/api/v3/sponsorship/${path}`,
    tags: [TAG],
    summary,
    description,
    security: ownerOrSession,
    middleware: [requireApiKeyOrSession] as const,
    request: { body: { required: true, ...jsonContent(body) } },
    responses,
  });
}

export const saveSettings = post("saveSponsorshipSettings", "settings", "Replace the sponsor's settings",
  "Every field not sent returns to its default (nothing enabled, no limits, no allowlists). Owner only (404 otherwise).",
  SaveSettingsSchema, { 200: { description: "The saved settings", ...jsonContent(SettingsSchema) }, ...errorResponses(400, 401, 404, 413, 415) });

export const check = post("checkSponsorship", "check", "Eligibility check; holds the max cost when eligible",
  "One SQL function under the sponsor's row lock: concurrent checks never hold more than the balance. The actor must be one of " +
  "your linked addresses on the chain, unless you own the sponsor wallet (403 `actor_not_linked`). Not eligible is a 200 with " +
  "`eligible: false` and a reason. Rate limited per user (429 `rate_limited` with `Retry-After`).",
  CheckSchema, { 200: { description: "The decision", ...jsonContent(CheckResultSchema) }, ...errorResponses(400, 401, 403, 413, 415, 429) });

export const providerVerify = createRoute({
  operationId: "verifySponsoredTransaction",
  method: "post",
  path: "/api/v3/sponsorship/provider/verify",
  tags: [TAG],
  summary: "The sponsored-transaction provider's server verifier",
  description:
    "Called by the provider (thirdweb's server-verifier request) with `x-service-provider-verifier-secret`. Approves only a " +
    "single call (`userOp.data` with one target) matching an active reservation: same clientId, chain, target, call data and " +
    "value, sent by the reservation's actor (or its smart account), and `gasLimit × gasPrice` within the hold. One approval per " +
    "reservation; every answer is recorded. A wrong or missing secret is 401.",
  security: [{ ProviderVerifierSecret: [] }],
  middleware: [requireVerifierSecret] as const,
  request: { body: { required: true, ...jsonContent(ProviderVerifySchema) } },
  responses: { 200: { description: "The decision", ...jsonContent(ProviderVerifyResultSchema) }, ...errorResponses(400, 401, 413, 415, 503) },
});

export const complete = post("completeSponsoredTransaction", "provider/complete", "Complete a verified sponsored transaction",
  "Verifies the transaction on-chain (direct EOA: the receipt, sender, target, call data and value, cost = gasUsed × " +
  "effectiveGasPrice plus any L1 fee; EIP-7702: the actor's delegation code at the receipt's block and the wrapped " +
  "`execute(target, value, data)`; ERC-4337: a known EntryPoint and exactly one matching UserOperationEvent, whose " +
  "actualGasCost is charged), then records the usage and releases the hold in one transaction. clientId, targetAddress, callData " +
  "and nativeValueWei must be those verified (409 `reservation_mismatch` naming the field). A transaction (or user operation) is " +
  "charged once (409 `transaction_already_charged`); the same completion again answers the first result with `replayed: true`. " +
  "202 while the transaction is not mined or not confirmed enough.",
  CompleteSchema, {
    200: { description: "Usage recorded", ...jsonContent(CompleteResultSchema) },
    202: { description: "Not mined or not confirmed yet: send it again later", ...jsonContent(PendingSchema) },
    ...errorResponses(400, 401, 404, 409, 413, 415),
    ...chainUnavailableResponse,
  });

export const cancel = post("cancelSponsoredTransaction", "provider/cancel", "Release a reservation the provider denied before broadcast",
  `Only your own active reservation, and only when clientId, targetAddress, callData and nativeValueWei match it (409 \`reservation_mismatch\`). ` +
  `The sponsor is resolved server-side: a body carrying ${CANCEL_REFUSED_FIELDS.map((f) => `\`${f}\``).join(", ")} is refused (400 \`cancel_field_not_allowed\`).`,
  CancelSchema, { 200: { description: "Released", ...jsonContent(CancelResultSchema) }, ...errorResponses(400, 401, 404, 409, 413, 415) });

export const recordDeposit = post("recordSponsorshipDeposit", "deposits/record", "Record a deposit after verifying it on-chain",
  "The transaction must send value from the sponsor wallet to the chain's sponsorship vault, succeed and be confirmed. Recorded " +
  "once per chain and hash (the same request again answers the first record, 200). Moves no funds. Owner only; rate limited.",
  RecordDepositSchema, {
    201: { description: "Recorded", ...jsonContent(DepositSchema) },
    200: { description: "Recorded before", ...jsonContent(DepositSchema) },
    202: { description: "Not mined or not confirmed yet", ...jsonContent(PendingSchema) },
    ...errorResponses(400, 401, 404, 409, 413, 415, 429),
    ...chainUnavailableResponse,
  });

export const recordUsage = createRoute({
  operationId: "recordSponsorshipUsage",
  method: "post",
  path: "/api/v3/sponsorship/usage/record",
  tags: [TAG],
  summary: "Record usage (trusted server integrations)",
  description:
    "Server API keys with `sponsorship:write` only (403 `missing_permission`); never from a browser (a request with an Origin header " +
    "is refused, 403 `browser_requests_refused`). Charges your own sponsor wallet once per transaction, never beyond its balance " +
    "(409 `insufficient_balance`). Rate limited.",
  security: apiKeySecurity,
  middleware: [refuseBrowserRequests, requireApiKey, requirePermission(sponsorship.recordUsage.permission!)] as const,
  request: { body: { required: true, ...jsonContent(RecordUsageSchema) } },
  responses: {
    201: { description: "Recorded", ...jsonContent(UsageSchema) },
    200: { description: "Recorded before", ...jsonContent(UsageSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429),
  },
});
