// A request with a made-up or revoked key must cost the service one cheap lookup, never the work of
// a valid request. The proof used here: a body that never ends. A service that reads (parses,
// validates) the body before checking the key never answers; one that checks first answers 401.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeApiKey } from "../../scripts/lib/admin-operations.ts";
import { createApiApp } from "../../supabase/functions/api/app.ts";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

/** A JSON body that starts like an event and never ends. */
function endlessBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"accessRules":[{},{},{},'));
    },
  });
}

function postEndless(key: string, framing: "declared length" | "chunked" = "declared length"): Promise<Response> {
  const length: Record<string, string> = framing === "chunked" ? {} : { "content-length": "1000000" };
  const answer = t.app.request("/api/v3/events", {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json", ...length },
    body: endlessBody(),
    duplex: "half",
  } as RequestInit);
  const hung = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("the service read the body before checking the key")), 2_000));
  return Promise.race([answer, hung]);
}

const MADE_UP_KEY = "sk_madeup00_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

describe("a bad key is refused before the request is read", () => {
  it("an unknown key gets 401 without the body being read", async () => {
    await expectErrorBody(await postEndless(MADE_UP_KEY), 401, "invalid_api_key");
  });

  it("nor a chunked body: the body limit counts what a route reads, it does not read ahead", async () => {
    await expectErrorBody(await postEndless(MADE_UP_KEY, "chunked"), 401, "invalid_api_key");
  });

  it("a revoked key that was in use costs at most one more validated request", async () => {
    const user = await t.userWithKey();
    expect((await t.call("/api/v3/me", { key: user.key })).status).toBe(200); // now accepted lately
    await revokeApiKey(t.adminDb, user.keyId);
    // Still remembered as accepted: refused inside the request's transaction, and forgotten.
    await expectErrorBody(await t.call("/api/v3/events", { method: "POST", key: user.key, json: {} }), 401, "invalid_api_key");
    await expectErrorBody(await postEndless(user.key), 401, "invalid_api_key");
  });
});

describe("a key accepted lately is remembered with its owner", () => {
  it("so handlers know the owner before their first statement; a made-up key is never remembered", async () => {
    const user = await t.userWithKey();
    const hash = createHash("sha256").update(user.key).digest();
    expect(t.db.acceptedKeys.ownerOf(hash)).toBeUndefined();
    expect((await t.call("/api/v3/events", { key: user.key })).status).toBe(200);
    expect(t.db.acceptedKeys.ownerOf(hash)).toBe(user.id);
    await t.call("/api/v3/events", { key: MADE_UP_KEY });
    expect(t.db.acceptedKeys.ownerOf(createHash("sha256").update(MADE_UP_KEY).digest())).toBeUndefined();
  });
});

describe("a permission the database checked lately is not checked again up front", () => {
  it("is remembered only once proven, and a key accepted lately without it is still refused", async () => {
    const holder = await t.userWithKey(["checkout:retry"]);
    const lacking = await t.userWithKey();
    const hashOf = (key: string) => createHash("sha256").update(key).digest();
    const retry = (key: string) => t.call("/api/v3/checkout/sessions/65f0000000000000000000c1/webhook/retry", { method: "POST", key });

    // Accepted lately, but never for checkout:retry: the up-front check still answers 403.
    expect((await t.call("/api/v3/events", { key: lacking.key })).status).toBe(200);
    expect(t.db.acceptedKeys.grants(hashOf(lacking.key), "checkout:retry")).toBe(false);
    await expectErrorBody(await retry(lacking.key), 403, "missing_permission");
    await expectErrorBody(await retry(lacking.key), 403, "missing_permission");

    expect(t.db.acceptedKeys.grants(hashOf(holder.key), "checkout:retry")).toBe(false);
    await expectErrorBody(await retry(holder.key), 404, "checkout_not_found");
    expect(t.db.acceptedKeys.grants(hashOf(holder.key), "checkout:retry")).toBe(true);
    expect(t.db.acceptedKeys.grants(hashOf(holder.key), "checkout:create")).toBe(false);
  });
});

describe("keys not accepted lately are checked on a pool of their own", () => {
  it("a flood of unknown keys waits there, never in front of requests with an accepted key", async () => {
    const pool = (max: number) => connect(t.config.GATEWAY_DATABASE_URL, { max, prepare: true });
    const keyCheck = pool(1);
    const db = new Database(pool(2), keyCheck);
    const app = createApiApp({ config: t.config, db });
    try {
      const user = await t.userWithKey();
      expect((await app.request("/api/v3/me", { headers: { "x-api-key": user.key } })).status).toBe(200); // accepted now
      const busy = keyCheck`select pg_sleep(1.5)`.execute(); // the key-check pool's one connection is taken
      const flood = Array.from({ length: 10 }, () => app.request("/api/v3/me", { headers: { "x-api-key": MADE_UP_KEY } }));
      let floodSettled = false;
      void Promise.all(flood).then(() => (floodSettled = true));
      const served = await app.request("/api/v3/events", { headers: { "x-api-key": user.key } });
      expect(served.status).toBe(200);
      // On a shared pool the flood would be answered within milliseconds; here it waits for the
      // key-check connection (held for 1.5 s), well after the accepted key was served.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(floodSettled).toBe(false);
      for (const refused of await Promise.all(flood)) await expectErrorBody(refused, 401, "invalid_api_key");
      await busy;
    } finally {
      await db.close();
    }
  });
});
