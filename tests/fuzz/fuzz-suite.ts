// The fuzz suite, whatever serves the app: every operation of the OpenAPI document the app serves is
// fuzzed, so a route added later is fuzzed with no new code: no 5xx, the one error body on every
// error, an x-request-id on every response, and no request changes a row of another user. A test file
// says where the requests go (`FuzzTarget`) and how many each operation gets; the database, the users,
// their rows and the services the functions call are arranged here the same way for every target.
// Seeded: FUZZ_SEED (default below) reproduces a run; a failure prints `{ seed, path }`, and
// FUZZ_SEED=<seed> FUZZ_PATH=<path> with `-t "<METHOD> <path>"` replays just its counterexample.
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEvent, createHub, joinHub, putHub } from "../hubs/hub-fixtures.ts";
import { CHAIN_ID, issueNonce, newWallet, signAndLink, siweMessage } from "../identity/siwe-fixtures.ts";
import { createTestContext, TEST_JWT_SECRET, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { operationsOf, requestArbitrary, type FuzzContext, type FuzzRequest, type Operation, type Outcome } from "./request-generators.ts";
import { rowChanges, userRowsReader, type UserRows } from "./user-rows.ts";
import { startSui } from "../sui/sui-fixtures.ts";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { generateLocalAuthSigningKey } from "../../supabase/functions/_shared/app-auth/signing-key.ts";
import { startMailSink } from "../../scripts/lib/mail-sink.ts";
import { startOpenAIStandIn } from "../../scripts/lib/openai-stand-in.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REPLAY = process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH, endOnFailure: true } : {};
const PERMISSIONS = ["checkout:create", "checkout:retry", "sponsorship:write", "collections:publish"];
const VERIFIER_SECRET = "fuzz-verifier-secret-0123456789-0123456789";

/** Where the fuzzer's requests go: sends one and judges the answer (request-generators.ts, checkAnswer). */
export interface FuzzTarget {
  send(request: FuzzRequest): Promise<Outcome>;
  close?(): Promise<void>;
}

/** What a target is made from: the test database (in process) and the secrets a function process needs (hosted). */
export interface FuzzWorld {
  ctx: TestContext;
  /** Every setting the functions run with, the database's included. */
  env: Record<string, string>;
}

/**
 * Defines the suite: `runs` requests for each operation, sent through the target `startTarget` makes
 * (awaited in beforeAll, closed in afterAll). `timeoutMs` bounds each operation's test.
 */
export async function describeFuzzSuite(where: string, { runs, startTarget, timeoutMs = 120_000 }: {
  runs: number;
  startTarget: (world: FuzzWorld) => Promise<FuzzTarget>;
  timeoutMs?: number;
}) {
  // A Sui node (the stand-in) and key, so that publishes get past the configuration to their own checks.
  const sui = await startSui();
  // The local auth server and a mailbox for its codes, so that /auth/v1 is served and mails are sent.
  const mail = await startMailSink();
  // The assistant's provider (it echoes), so that chat requests get past the configuration to the answer.
  const openai = await startOpenAIStandIn();
  const settings: Record<string, string> = {
    APP_ENV: "test",
    JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    MCP_SIGN_IN_RESEND_SECONDS: "1",
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
  };
  const ctx = await createTestContext(settings);
  const env = { ...settings, GATEWAY_DATABASE_URL: ctx.config.GATEWAY_DATABASE_URL, DB_POOL_MAX: String(ctx.config.DB_POOL_MAX) };
  let target: FuzzTarget | undefined;
  afterAll(async () => {
    await target?.close?.();
    await ctx.close();
    await sui.node.close();
    await mail.close();
    await openai.close();
  });

  /** An app session token of `user` as Supabase Auth signs one (the legacy HS256 secret). */
  const sessionToken = (user: UserWithKey, expiresAt: number | string, secret = TEST_JWT_SECRET) =>
    new SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(user.authUserId)
      .setAudience("authenticated").setExpirationTime(expiresAt).sign(new TextEncoder().encode(secret));

  // The API's document and the local auth server's own (it is on here).
  const documents = [await (await ctx.call("/api/v3/openapi")).json(), await (await ctx.call("/auth/v1/openapi.json")).json()];
  // DELETEs last: they may destroy the fuzzer's own rows that the other operations aim at.
  const operations: Operation[] = documents.flatMap(operationsOf).sort((a, b) => Number(a.method === "DELETE") - Number(b.method === "DELETE"));

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
    target = await startTarget({ ctx, env });
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
      schemas: Object.assign({}, ...documents.map((document) => document.components?.schemas ?? {})),
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
  }, 300_000);

  /** Each operation's answered statuses that its responses do not document, with a request that got one. */
  const undocumented = new Map<string, Map<number, string>>();

  /** Sends the request; returns what is wrong with the answer and with other users' rows afterwards. */
  async function problemsOf(operation: Operation, request: FuzzRequest): Promise<string> {
    const outcome = await target!.send(request);
    if (outcome.reachedService !== false && reachesOperation(request) && !operation.documentedStatuses.includes(String(outcome.status))) {
      const key = `${operation.method} ${operation.path}`;
      const statuses = undocumented.get(key) ?? new Map<number, string>();
      if (!statuses.has(outcome.status)) statuses.set(outcome.status, `${request.mutation} -> ${outcome.bodyExcerpt.slice(0, 160)}`);
      undocumented.set(key, statuses);
    }
    const rowsNow = await readOtherUsersRows();
    const changes = rowChanges(otherUsersRows, rowsNow).map((change) => change.slice(0, 400));
    otherUsersRows = rowsNow;
    const problems = changes.length > 0 ? [...outcome.problems, `changed other users' rows:\n    ${changes.join("\n    ")}`] : outcome.problems;
    return problems.length === 0 ? "" : `${problems.join("; ")}\n  ${request}\n  answered ${outcome.status}: ${outcome.bodyExcerpt}`;
  }

  describe(`every operation of the OpenAPI document, ${where} (seed ${SEED}, ${runs} requests each)`, () => {
    it("has operations to fuzz, the app-backend functions' among them", () => {
      expect(operations.length).toBeGreaterThan(0);
      expect(operations.filter((o) => o.sessionOnly).map((o) => `${o.method} ${o.path}`).sort())
        .toEqual([
          "GET /auth/v1/user", "POST /auth/v1/logout", "POST /functions/v1/chat-with-assistant", "POST /functions/v1/discover-mcp-capabilities",
          "POST /functions/v1/rename-chat-for-event", "POST /functions/v1/transcribe-audio",
        ]);
    });

    for (const operation of operations) {
      it(`${operation.method} ${operation.path}`, async () => {
        await fc.assert(
          fc.asyncProperty(requestArbitrary(operation, context), async (request) => {
            const problems = await problemsOf(operation, request);
            if (problems) throw new Error(problems);
          }),
          { seed: SEED, numRuns: runs, ...REPLAY },
        );
      }, timeoutMs);
    }

    // Last: what the operations above answered. A request sent elsewhere (another method, the path
    // spelled otherwise, a preflight) is answered by the router, not the operation, and is left out.
    it("answered only statuses that each operation documents", () => {
      const found = [...undocumented].flatMap(([operation, statuses]) =>
        [...statuses].map(([status, example]) => `${operation} answered ${status} (e.g. ${example})`));
      expect(found).toEqual([]);
    });
  });
}

/**
 * Whether `request` is addressed to its operation: its method and its path template (a path
 * parameter "." or ".." is a dot segment, which names another path).
 */
function reachesOperation(request: FuzzRequest): boolean {
  return !/^(method |path spelled with|CORS preflight|path \w+: "\.{1,2}";)/.test(request.mutation);
}
