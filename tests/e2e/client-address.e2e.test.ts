// The real Deno gateway counts per-IP limits by the socket's peer, also through the header-read guard,
// which relays every connection over loopback (so the server it relays to sees the relay, not the
// client). Linux routes all of 127.0.0.0/8 to loopback, so binding the client's end to 127.0.0.1 or
// 127.0.0.2 gives two clients with different addresses.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

const PER_IP = 2;

let t: TestContext;
let guarded: GatewayProcess;
let behindProxy: GatewayProcess;

beforeAll(async () => {
  t = await createTestContext();
  const limits = { DATABASE_URL: t.url, MCP_REGISTRATIONS_PER_IP: String(PER_IP), WEBHOOK_DISPATCH: "false", CHECKOUT_RECONCILE_SECONDS: "0", RELAYER_LOOP_SECONDS: "0" };
  // The default: the guard in front (HEADER_TIMEOUT_MS 10 s), no trusted proxy.
  guarded = await startGatewayProcess(limits);
  // Deno.serve alone (as on Supabase, where the runtime's own server calls the function), behind a proxy at 127.0.0.1.
  behindProxy = await startGatewayProcess({ ...limits, HEADER_TIMEOUT_MS: "0", TRUSTED_PROXIES: "127.0.0.1" });
}, 90_000);
afterAll(async () => {
  await guarded?.stop("SIGKILL");
  await behindProxy?.stop("SIGKILL");
  await t.close();
});

/** Registers a client over a new connection from `from`; the status. */
function register(gateway: GatewayProcess, from: string, forwardedFor?: string): Promise<number> {
  const body = JSON.stringify({ client_name: "Client", redirect_uris: ["https://client.example/cb"] });
  const url = new URL(`${gateway.url}/oauth/register`);
  return new Promise((resolve, reject) => {
    const req = request({
      host: url.hostname, port: url.port, path: url.pathname, method: "POST", localAddress: from, agent: false,
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...(forwardedFor ? { "x-forwarded-for": forwardedFor } : {}) },
    }, (res) => {
      res.resume();
      res.once("end", () => resolve(res.statusCode!));
    });
    req.once("error", reject);
    req.end(body);
  });
}

async function statuses(count: number, call: (i: number) => Promise<number>): Promise<number[]> {
  const out = [];
  for (let i = 0; i < count; i++) out.push(await call(i));
  return out;
}

const allowedThenRefused = [...Array<number>(PER_IP).fill(201), 429];

describe("per-IP limits through the real gateway", () => {
  it("through the guard's relay, clients at 127.0.0.1 and 127.0.0.2 have a limit each; their X-Forwarded-For is ignored", async () => {
    expect(await statuses(PER_IP + 1, (i) => register(guarded, "127.0.0.1", `203.0.113.${i + 1}`))).toEqual(allowedThenRefused);
    expect(await register(guarded, "127.0.0.2")).toBe(201);
  });

  it("with the peer a trusted proxy, the forwarded address counts; an untrusted peer's header still does not", async () => {
    expect(await statuses(PER_IP + 1, (i) => register(behindProxy, "127.0.0.1", `203.0.113.${i + 1}, 192.0.2.10`))).toEqual(allowedThenRefused);
    expect(await register(behindProxy, "127.0.0.1", "192.0.2.11")).toBe(201);
    // 127.0.0.3 is not a trusted proxy: its own address counts, whatever it forwards.
    expect(await statuses(PER_IP + 1, (i) => register(behindProxy, "127.0.0.3", `192.0.2.${20 + i}`))).toEqual(allowedThenRefused);
  });
});
