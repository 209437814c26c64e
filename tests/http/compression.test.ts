// Compression (createBaseApp, _shared/http/compression.ts): JSON answers of 1 KB and more and the
// static scripts travel gzipped to a client that accepts it, as they are to one that does not, with
// `Vary: Accept-Encoding` either way; small answers and the assistant's event stream never.
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SDK_SCRIPT_PATH, CHECKOUT_ASSET_PATHS } from "../../supabase/functions/api/checkout-page/routes.ts";
import { TICKET_ASSET_PATHS } from "../../supabase/functions/api/ticket-page/routes.ts";
import { newMessageId, startChatWorld, type ChatWorld } from "../app-functions/chat-fixtures.ts";
import { createTestContext, type TestContext, type UserWithKey } from "../setup/test-context.ts";

let t: TestContext;
let user: UserWithKey;

beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey();
  await t.owner`
    insert into community.events (owner_id, name, slug, starts_at, ends_at, time_zone, status)
    select ${user.id}, format('Compression meetup number %s', n), format('compression-%s', n),
      now() + interval '1 day', now() + interval '1 day 2 hours', 'UTC', 'PUBLISHED'
    from generate_series(1, 20) n`;
});
afterAll(async () => {
  await t?.close();
});

const GZIP = { "accept-encoding": "gzip" };

/** The body as the client reads it: gunzipped when it came gzipped. */
async function decoded(response: Response): Promise<string> {
  const bytes = Buffer.from(await response.arrayBuffer());
  return (response.headers.get("content-encoding") === "gzip" ? gunzipSync(bytes) : bytes).toString("utf8");
}

describe("compression", () => {
  it("a JSON list over 1 KB comes gzipped to a client that accepts gzip, and as it is to one that does not", async () => {
    const identity = await t.call("/api/v3/events?take=20", { key: user.key });
    expect(identity.status).toBe(200);
    expect(identity.headers.get("content-encoding")).toBeNull();
    expect(identity.headers.get("vary")?.toLowerCase()).toContain("accept-encoding");
    const plain = await identity.text();
    expect(Buffer.byteLength(plain)).toBeGreaterThan(1024);
    expect(JSON.parse(plain).items).toHaveLength(20);

    const gzipped = await t.call("/api/v3/events?take=20", { key: user.key, headers: GZIP });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(gzipped.headers.get("vary")?.toLowerCase()).toContain("accept-encoding");
    expect(gzipped.headers.get("content-type")).toMatch(/^application\/json/);
    const bytes = Buffer.from(await gzipped.arrayBuffer());
    expect(bytes.byteLength).toBeLessThan(Buffer.byteLength(plain) / 2);
    expect(JSON.parse(gunzipSync(bytes).toString("utf8"))).toEqual(JSON.parse(plain));
  });

  it("a JSON answer under 1 KB travels as it is, gzip accepted or not", async () => {
    const me = await t.call("/api/v3/me", { key: user.key, headers: GZIP });
    expect(me.status).toBe(200);
    expect(me.headers.get("content-encoding")).toBeNull();
    expect((await me.json()).id).toBe(user.id);
  });

  it("serves the static scripts gzipped: the docs page's, the SDK, the ticket page's QR encoder, the checkout page's", async () => {
    for (const path of ["/api/v3/docs/scalar.js", SDK_SCRIPT_PATH, TICKET_ASSET_PATHS.encoder, CHECKOUT_ASSET_PATHS.script]) {
      const plain = await t.call(path);
      expect(plain.status, path).toBe(200);
      const text = await plain.text();
      const gzipped = await t.call(path, { headers: GZIP });
      expect(gzipped.headers.get("content-encoding"), path).toBe("gzip");
      expect(gzipped.headers.get("vary")?.toLowerCase(), path).toContain("accept-encoding");
      expect(gzipped.headers.get("content-type"), path).toMatch(/^text\/javascript/);
      expect(await decoded(gzipped), path).toBe(text);
      expect(Buffer.from(await (await t.call(path, { headers: GZIP })).arrayBuffer()).length, `${path}, asked again`).toBeLessThan(Buffer.byteLength(text));
      const refused = await t.call(path, { headers: { "accept-encoding": "gzip;q=0, identity" } });
      expect(refused.headers.get("content-encoding"), `${path}, gzip;q=0`).toBeNull();
      expect(await refused.text(), `${path}, gzip;q=0`).toBe(text);
    }
  });
});

describe("the assistant's event stream", () => {
  let chat: ChatWorld;
  beforeAll(async () => {
    chat = await startChatWorld();
  });
  afterAll(async () => {
    await chat?.close();
  });

  it("is never compressed, even when the client accepts gzip and the answer is long", async () => {
    const { token } = await chat.person();
    const response = await chat.world.fetch(new Request("http://localhost/functions/v1/chat-with-assistant", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}`, ...GZIP },
      body: JSON.stringify({ roomId: "room-compression", messageId: newMessageId(), message: "long ".repeat(600) }),
    }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(response.headers.get("content-encoding")).toBeNull();
    const text = await response.text();
    expect(text.length).toBeGreaterThan(1024);
    expect(text).toContain("echo: long");
  });
});
