// A good key is never refused with another statement's error. The key check's connection dies right
// after the database refused a made-up key (its error sent, the server's ReadyForQuery not): postgres.js
// 3.4.9 as published kept that error and replayed it onto the first statement of the reconnected
// connection, so the next key checked, a good one never used before, was answered 401 invalid_api_key
// in a few milliseconds (patches/postgres+3.4.9.patch drops it with the socket). A TCP proxy in front of
// the test database cuts the connection at that point.
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import { connect, Database } from "../../supabase/functions/_shared/db/database.ts";
import { ApiKeyScope } from "../../supabase/functions/_shared/db/scopes.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(async () => {
  await t.close();
});

/**
 * Forwards to `target`; once `cutAtNextRefusal()` is called, the next ErrorResponse with SQLSTATE
 * PT401 the server sends is forwarded and the connection then closed, before anything after it.
 */
async function startCuttingProxy(target: URL): Promise<{ url: string; cutAtNextRefusal(): void; server: Server }> {
  let armed = false;
  const server = createServer((client: Socket) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream);
    let pending = Buffer.alloc(0);
    upstream.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5 && pending.length >= 1 + pending.readUInt32BE(1)) {
        const end = 1 + pending.readUInt32BE(1);
        const message = pending.subarray(0, end);
        pending = pending.subarray(end);
        client.write(message);
        if (armed && message[0] === 0x45 && message.includes(Buffer.from("CPT401\0"))) {
          armed = false;
          upstream.destroy();
          client.end();
          return;
        }
      }
    });
    upstream.on("end", () => client.end());
  });
  await listenOnLoopback(server);
  const proxied = new URL(target);
  proxied.hostname = "127.0.0.1";
  proxied.port = String((server.address() as { port: number }).port);
  return { url: proxied.toString(), cutAtNextRefusal: () => (armed = true), server };
}

const madeUpKey = () => `sk_abcdefgh_${crypto.randomUUID().replaceAll("-", "")}0123456789a`;

describe("a good key is never refused with another statement's error", () => {
  it("after the connection died with a refused key's error half-delivered, the next good key is accepted", async () => {
    const proxy = await startCuttingProxy(new URL(t.config.GATEWAY_DATABASE_URL));
    // The key checks go through the proxy; the availability probe does not (it must find the database up).
    const db = new Database(connect(proxy.url, { max: 1, prepare: true }), undefined, {
      probeSql: connect(t.config.GATEWAY_DATABASE_URL, { max: 1, prepare: true }),
    });
    try {
      const goodKey = (await t.userWithKey()).key;
      await expect(db.checkNewKey(new ApiKeyScope(hashApiKey(madeUpKey())))).rejects.toMatchObject({ status: 401, code: "invalid_api_key" });

      proxy.cutAtNextRefusal();
      // The made-up key's check lost its connection: whatever it answers, never a 200.
      await expect(db.checkNewKey(new ApiKeyScope(hashApiKey(madeUpKey())))).rejects.toMatchObject({ status: expect.any(Number) });

      const scope = new ApiKeyScope(hashApiKey(goodKey));
      await db.checkNewKey(scope);
      expect(scope.verified).toBe(true);
    } finally {
      await db.close();
      await new Promise((resolve) => proxy.server.close(resolve));
    }
  });
});
