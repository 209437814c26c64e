// Session creation is one SQL function, and the unique constraint on
// (owner, externalOrderId) with `on conflict do nothing` decides races. 50 concurrent calls for one
// order, each on its own connection of the service's login role, inside a transaction that enters
// the API key's scope as the service does, all released at once after entering it.
import { createHash, randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import { createTestContext, type TestContext, type UserWithKey } from "../setup/test-context.ts";

const CALLS = 50;

let t: TestContext;
let gateway: postgres.Sql;
let user: UserWithKey;
let collectionId: string;

beforeAll(async () => {
  t = await createTestContext();
  // One connection per call: a transaction holds its connection, so 50 run side by side.
  gateway = postgres(t.config.GATEWAY_DATABASE_URL, { max: CALLS, onnotice: () => {} });
  user = await t.userWithKey(["checkout:create"]);
  // Registered behind the API's back (the owner bypasses RLS): registration is not under test.
  const [row] = await t.owner<{ id: string }[]>`
    insert into checkout.collections (owner_id, chain_id, address, pricing, token_decimals, verified_owner_address)
    values (${user.id}, 31337, '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'dynamic', 18,
            '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    returning id`;
  collectionId = row!.id;
});
afterAll(async () => {
  await gateway.end();
  await t.close();
});

function canonicalRequest(price: string) {
  return {
    items: [{ name: "Ticket", description: "One ticket", mintPrice: price, image: "https://store.example/t.png", externalProductRef: "sku-1", quantity: 1 }],
    paymentMethods: ["crypto_wallet"],
    allowedOrigin: "https://store.example",
    webhookUrl: "https://store.example/webhooks",
    expiresInSeconds: 3600,
    price,
  };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest();

interface Outcome {
  pid: number;
  id?: string;
  created?: boolean;
  ciphertext?: string;
  error?: { code?: string; hint?: string; detail?: string };
}

/** Runs one create_session per request, each in its own transaction, released together. */
async function createConcurrently(orderId: string, requests: ReturnType<typeof canonicalRequest>[]): Promise<Outcome[]> {
  const keyHash = hashApiKey(user.key);
  let arrived = 0;
  let release!: () => void;
  const allInScope = new Promise<void>((resolve) => (release = resolve));
  return Promise.all(requests.map(async (request) => {
    const text = JSON.stringify(request);
    const secret = randomBytes(32);
    let pid = 0;
    try {
      const [row] = await gateway.begin(async (tx) => {
        const [backend] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
        pid = backend!.pid;
        await tx`select core.enter_api_key_scope(${keyHash}, '{checkout:create}')`;
        if (++arrived === requests.length) release();
        await allInScope;
        return tx<{ id: string; created: boolean; client_secret_ciphertext: Buffer }[]>`
          select id, created, client_secret_ciphertext
          from checkout.create_session(${collectionId}, ${orderId}, ${sha256(text)}, ${tx.json(request)},
                                       ${createHash("sha256").update(secret).digest()}, ${secret},
                                       now() + interval '1 hour')`;
      });
      return { pid, id: row!.id, created: row!.created, ciphertext: row!.client_secret_ciphertext.toString("hex") };
    } catch (error) {
      const e = error as { code?: string; hint?: string; detail?: string };
      return { pid, error: { code: e.code, hint: e.hint, detail: e.detail } };
    }
  }));
}

async function sessionsOf(orderId: string) {
  return t.owner<{ id: string; request: unknown; ciphertext: string }[]>`
    select id, request, encode(client_secret_ciphertext, 'hex') as ciphertext
    from checkout.sessions where owner_id = ${user.id} and external_order_id = ${orderId}`;
}

describe("checkout.create_session under concurrency", () => {
  it("50 identical concurrent calls create exactly one session and all answer it, with its secret", async () => {
    const outcomes = await createConcurrently("order-identical", Array.from({ length: CALLS }, () => canonicalRequest("1000")));

    expect(new Set(outcomes.map((o) => o.pid)).size).toBe(CALLS); // 50 connections
    expect(outcomes.filter((o) => o.error)).toEqual([]);
    const stored = await sessionsOf("order-identical");
    expect(stored).toHaveLength(1);
    expect(new Set(outcomes.map((o) => o.id))).toEqual(new Set([stored[0]!.id]));
    expect(outcomes.filter((o) => o.created)).toHaveLength(1);
    // Every replay returns the winner's client secret (ciphertext), so every answer has the same URL.
    expect(new Set(outcomes.map((o) => o.ciphertext))).toEqual(new Set([stored[0]!.ciphertext]));
  });

  it("with two different requests racing for one order, one request wins: its callers get the session, the others 409", async () => {
    const requests = Array.from({ length: CALLS }, (_, i) => canonicalRequest(i % 2 === 0 ? "1000" : "2000"));
    const outcomes = await createConcurrently("order-contested", requests);

    const stored = await sessionsOf("order-contested");
    expect(stored).toHaveLength(1);
    const winningPrice = (stored[0]!.request as { price: string }).price;
    for (const [i, outcome] of outcomes.entries()) {
      if (requests[i]!.price === winningPrice) {
        expect(outcome.error, `call ${i}`).toBeUndefined();
        expect(outcome.id).toBe(stored[0]!.id);
      } else {
        expect(outcome.error?.code, `call ${i}`).toBe("PT409");
        expect(outcome.error?.hint).toBe("idempotency_conflict");
        expect(JSON.parse(outcome.error!.detail!)).toEqual({ differingFields: ["items", "price"] });
      }
    }
    expect(outcomes.filter((o) => o.created)).toHaveLength(1);
    expect(outcomes.filter((o) => o.error)).toHaveLength(CALLS / 2);
  });
});
