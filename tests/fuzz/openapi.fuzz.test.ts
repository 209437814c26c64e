// Fuzzes every operation of the OpenAPI document the app serves, so a route added later is fuzzed
// with no new code: no 5xx, the one error body on every error, an x-request-id on every response,
// and no request changes a row of another user. Requests go through the gateway's routing, so the
// app-backend functions the document describes (/functions/v1/<name>) reach their own apps.
// Seeded: FUZZ_SEED (default below) and FUZZ_RUNS (requests per operation) reproduce a run; a
// failure prints `{ seed, path }`, and FUZZ_SEED=<seed> FUZZ_PATH=<path> with `-t "<METHOD> <path>"`
// replays just its counterexample.
import fc from "fast-check";
import { Hono } from "hono";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvent, createHub, joinHub, putHub } from "../hubs/hub-fixtures.ts";
import { CHAIN_ID, issueNonce, newWallet, signAndLink, siweMessage } from "../identity/siwe-fixtures.ts";
import { createTestContext, TEST_JWT_SECRET, type UserWithKey } from "../setup/test-context.ts";
import { operationsOf, requestArbitrary, sendAndCheck, type FuzzContext, type FuzzRequest, type Operation } from "./request-generators.ts";
import { rowChanges, userRowsReader, type UserRows } from "./user-rows.ts";
import { startSui } from "../sui/sui-fixtures.ts";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { startMailSink } from "../../scripts/lib/mail-sink.ts";
import { createFunctions, createGateway } from "../../scripts/gateway.ts";
import { startOpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
// About 20 s for the file on the 2-core machine (22 operations, ~1.5 ms a request).
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const REPLAY = process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH, endOnFailure: true } : {};
const PERMISSIONS = ["checkout:create", "checkout:retry", "sponsorship:write", "collections:publish"];

const VERIFIER_SECRET = "fuzz-verifier-secret-0123456789-0123456789";
// A Sui node (the stand-in) and key, so that publishes get past the configuration to their own checks.
const sui = await startSui();
// The local auth server and a mailbox for its codes, so that /auth/v1 is served and mails are sent.
const mail = await startMailSink();
// The assistant's provider (it echoes), so that chat requests get past the configuration to the answer.
const openai = await startOpenAIStandIn();
const ctx = await createTestContext({
  LOCAL_AUTH_ENABLED: "true",
  LOCAL_AUTH_SIGNING_KEY: await generateLocalAuthSigningKey(),
  SMTP_URL: mail.url,
  ASSISTANT_BASE_URL: `${openai.url}/v1`,
  ASSISTANT_API_KEY: openai.apiKey,
  SPONSORSHIP_VERIFIER_SECRETS: VERIFIER_SECRET,
  RELAYER_PRIVATE_KEY: `0x${"ab".repeat(32)}`,
  SUI_NETWORKS: JSON.stringify([{ network: sui.network.network, grpcUrl: sui.network.grpcUrl, packageId: sui.packageId }]),
  SUI_PRIVATE_KEY: sui.serviceKey.getSecretKey(),
  TICKET_SIGNING_KEYS: await generateTicketSigningKey("fuzz"),
  BRACELET_SUN_KEYS: JSON.stringify({ metaReadKey: "00".repeat(16), fileReadKey: "11".repeat(16) }),
});
afterAll(async () => {
  await ctx.close();
  await sui.node.close();
  await mail.close();
  await openai.close();
});

// Every function behind the gateway's routing, called in process as app.request calls one app.
const functions = createFunctions({ config: ctx.config, db: ctx.db });
const gateway = createGateway(functions, functions.api);
const target = new Hono().all("*", (c) => gateway(c.req.raw, {}));

/** An app session token of `user` as Supabase Auth signs one (the legacy HS256 secret). */
const sessionToken = (user: UserWithKey, expiresAt: number | string, secret = TEST_JWT_SECRET) =>
  new SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(user.authUserId)
    .setAudience("authenticated").setExpirationTime(expiresAt).sign(new TextEncoder().encode(secret));

const document = await (await ctx.call("/api/v3/openapi")).json();
// DELETEs last: they may destroy the fuzzer's own rows that the other operations aim at.
const operations: Operation[] = operationsOf(document).sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));

let context: FuzzContext;
let readOtherUsersRows: () => Promise<UserRows>;
/** The victim's and the bystander's rows after the last request: each request is judged on its own changes. */
let otherUsersRows: UserRows;

async function expectStatus(response: Promise<Response>, status: number, what: string) {
  const answered = await response;
  if (answered.status !== status) throw new Error(`${what}: expected ${status}, got ${answered.status} ${await answered.text()}`);
}

/** Events of every visibility and state, hubs public, private and draft, and a linked wallet. */
async function arrangeOwnData(user: UserWithKey) {
  const events = [
    await createEvent(ctx, user.key),
    await createEvent(ctx, user.key, { visibility: "unlisted" }),
    await createEvent(ctx, user.key, { visibility: "private" }),
    await createEvent(ctx, user.key, { status: "INCOMPLETE" }),
  ];
  const hubs = [
    (await createHub(ctx, user.key)).id,
    (await createHub(ctx, user.key, { isPrivate: true })).id,
    (await createHub(ctx, user.key, { status: "INCOMPLETE" })).id,
  ];
  await expectStatus(putHub(ctx, user.key, hubs[0]!, { connectEventIds: events }), 200, "connect events");
  const wallet = newWallet();
  await expectStatus(signAndLink(ctx, user.key, wallet), 201, "link a wallet");
  return { events, hubs, address: wallet.address };
}

/** SIWE messages of a new wallet with nonces issued to `user`, and their signatures: link requests get past the message checks. */
async function signedLinkMessages(user: UserWithKey, count: number) {
  const wallet = newWallet();
  const messages: string[] = [];
  const signatures: string[] = [];
  for (let i = 0; i < count; i++) {
    const message = siweMessage(wallet, await issueNonce(ctx, user.key));
    messages.push(message);
    signatures.push(await wallet.signMessage({ message }));
  }
  return { message: messages, signature: signatures };
}

/** `nextCursor` of the first one-item page of every list operation (an operation with a `cursor` parameter). */
async function harvestCursors(key: string): Promise<string[]> {
  const cursors: string[] = [];
  for (const operation of operations) {
    const names = operation.parameters.map((p) => p.name);
    if (operation.method !== "GET" || operation.path.includes("{") || !names.includes("cursor")) continue;
    const response = await ctx.call(`${operation.path}${names.includes("take") ? "?take=1" : ""}`, { key });
    const page = await response.json();
    if (typeof page.nextCursor === "string") cursors.push(page.nextCursor);
  }
  return cursors;
}

beforeAll(async () => {
  const fuzzer = await ctx.userWithKey(PERMISSIONS);
  const victim = await ctx.userWithKey(PERMISSIONS);
  const bystander = await ctx.userWithKey();
  const revoked = await ctx.userWithKey(PERMISSIONS);
  await ctx.owner`update core.api_keys set revoked_at = now() where id = ${revoked.keyId}`;

  const bystanderHub = (await createHub(ctx, bystander.key)).id;
  const victimData = await arrangeOwnData(victim);
  const fuzzerData = await arrangeOwnData(fuzzer);
  await expectStatus(joinHub(ctx, victim.key, bystanderHub), 201, "victim joins the bystander's hub");

  // Reservations: the victim's at their own event (the fuzzer must not touch it), the fuzzer's there and at its own.
  const reservationIds: string[] = [];
  for (const [who, eventId] of [[victim, victimData.events[0]!], [fuzzer, victimData.events[0]!], [fuzzer, fuzzerData.events[0]!]] as const) {
    const reserved = await ctx.call(`/api/v3/events/${eventId}/reservations`, { method: "POST", key: who.key });
    if (reserved.status !== 201) throw new Error(`reserve: ${reserved.status} ${await reserved.text()}`);
    reservationIds.push((await reserved.json()).id);
  }

  const eventIds = [...victimData.events, ...fuzzerData.events];
  const hubIds = [...victimData.hubs, ...fuzzerData.hubs, bystanderHub];
  const addresses = [victimData.address, fuzzerData.address];
  context = {
    schemas: document.components?.schemas ?? {},
    knownStrings: [...eventIds, ...hubIds, victim.id, bystander.id, fuzzer.id],
    knownValues: {
      eventId: eventIds,
      hubId: hubIds,
      reservationId: reservationIds,
      address: [...addresses, ...addresses.map((a) => a.toLowerCase())],
      chainId: [String(CHAIN_ID)],
      cursor: await harvestCursors(fuzzer.key),
      ...(await signedLinkMessages(fuzzer, 3)),
    },
    fuzzerKey: fuzzer.key,
    sessionTokens: {
      valid: await sessionToken(fuzzer, "1h"),
      expired: await sessionToken(fuzzer, Math.floor(Date.now() / 1000) - 60),
      forged: await sessionToken(fuzzer, "1h", "not-the-service-secret-but-long-enough-0123456789"),
    },
    revokedKey: revoked.key,
    verifierSecret: VERIFIER_SECRET,
  };
  readOtherUsersRows = await userRowsReader(ctx.owner, [victim.id, bystander.id]);
  otherUsersRows = await readOtherUsersRows();
  // The snapshot must hold what was arranged, or comparing it proves nothing.
  expect(otherUsersRows["community.events"]).toHaveLength(4);
  expect(otherUsersRows["community.hub_events"]).toHaveLength(4);
  expect(otherUsersRows["community.hub_members"]).toHaveLength(1);
  expect(otherUsersRows["core.crypto_addresses"]).toHaveLength(1);
});

/** Sends the request; returns what is wrong with the answer and with other users' rows afterwards. */
async function problemsOf(request: FuzzRequest): Promise<string> {
  const outcome = await sendAndCheck(target, request);
  const rowsNow = await readOtherUsersRows();
  const changes = rowChanges(otherUsersRows, rowsNow).map((change) => change.slice(0, 400));
  otherUsersRows = rowsNow;
  const problems = changes.length > 0 ? [...outcome.problems, `changed other users' rows:\n    ${changes.join("\n    ")}`] : outcome.problems;
  return problems.length === 0 ? "" : `${problems.join("; ")}\n  ${request}\n  answered ${outcome.status}: ${outcome.bodyExcerpt}`;
}

describe(`every operation of the OpenAPI document (seed ${SEED}, ${RUNS} requests each)`, () => {
  it("has operations to fuzz, the app-backend functions' among them", () => {
    expect(operations.length).toBeGreaterThan(0);
    expect(operations.filter((o) => o.sessionOnly).map((o) => `${o.method} ${o.path}`).sort())
      .toEqual(["GET /auth/v1/user", "POST /auth/v1/logout", "POST /functions/v1/chat-with-assistant", "POST /functions/v1/discover-mcp-capabilities"]);
  });

  for (const operation of operations) {
    it(`${operation.method} ${operation.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(operation, context), async (request) => {
          const problems = await problemsOf(request);
          if (problems) throw new Error(problems);
        }),
        { seed: SEED, numRuns: RUNS, ...REPLAY },
      );
    }, 120_000);
  }
});
