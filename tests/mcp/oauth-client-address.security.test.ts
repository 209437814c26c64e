// Whose address the per-IP limits count: the connection's peer, which a client cannot choose.
// X-Forwarded-For counts only when that peer is one of TRUSTED_PROXIES, and then only the entries
// the trusted proxies added. In process there is no socket, so each request says its peer the way the
// runtime does (connectionFrom); tests/e2e/client-address.e2e.test.ts shows the real sockets.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Browser, createOAuthTestContext, type OAuthTestContext, ROOT } from "./oauth-fixtures.ts";

const PER_IP = 3;

let ctx: OAuthTestContext;
beforeAll(async () => {
  ctx = await createOAuthTestContext({
    MCP_SIGN_IN_REQUESTS_PER_IP: String(PER_IP),
    MCP_SIGN_IN_CODES_PER_ADDRESS: "100",
    MCP_REGISTRATIONS_PER_IP: String(PER_IP),
    TRUSTED_PROXIES: "10.0.0.0/8, fd00::/8",
  });
});
afterAll(async () => {
  await ctx?.close();
});

let emails = 0;

/** Asks for a sign-in code as a client at `peer`, sending `forwardedFor` when given; the status. */
async function requestCode(peer: string, forwardedFor?: string): Promise<number> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (forwardedFor !== undefined) headers["x-forwarded-for"] = forwardedFor;
  const body = new URLSearchParams({ email: `person${++emails}@example.com` });
  return (await new Browser(ctx).request("/oauth/sign-in", { method: "POST", headers, body }, peer)).status;
}

const allowedThenRefused = [...Array<number>(PER_IP).fill(200), 429];

describe("per-IP limits count the connection's peer", () => {
  it("clients at different addresses do not share a limit", async () => {
    const first = [];
    for (let i = 0; i <= PER_IP; i++) first.push(await requestCode("198.51.100.1"));
    expect(first).toEqual(allowedThenRefused);
    expect(await requestCode("198.51.100.2")).toBe(200);
    // The same client over IPv6 sockets (IPv4-mapped) is still the same client.
    expect(await requestCode("::ffff:198.51.100.1")).toBe(429);
  });

  it("a client's own X-Forwarded-For is ignored: rotating it does not escape the limit", async () => {
    const statuses = [];
    for (let i = 0; i <= PER_IP; i++) statuses.push(await requestCode("198.51.100.3", `203.0.113.${i + 1}`));
    expect(statuses).toEqual(allowedThenRefused);
  });

  it("behind a trusted proxy the address that proxy forwarded counts, not what the client wrote left of it", async () => {
    const statuses = [];
    for (let i = 0; i <= PER_IP; i++) statuses.push(await requestCode("10.1.2.3", `203.0.113.${100 + i}, 192.0.2.7`));
    expect(statuses).toEqual(allowedThenRefused);
    // Another client behind the same proxy has a limit of its own.
    expect(await requestCode("10.1.2.3", "192.0.2.8")).toBe(200);
    // Through a second trusted hop (an IPv6 one), the client is still 192.0.2.7.
    expect(await requestCode("10.1.2.3", "192.0.2.7, fd00::2")).toBe(429);
    // A trusted proxy that forwarded nothing is itself the client.
    expect(await requestCode("10.9.9.9")).toBe(200);
  });

  it("registrations count the peer too", async () => {
    const register = (peer: string) =>
      ctx.fetch(`${ROOT}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `203.0.113.${++emails % 250}` },
        body: JSON.stringify({ client_name: "Client", redirect_uris: ["https://client.example/cb"] }),
      }, peer);
    const statuses = [];
    for (let i = 0; i <= PER_IP; i++) statuses.push((await register("2001:db8::1")).status);
    expect(statuses).toEqual([...Array<number>(PER_IP).fill(201), 429]);
    expect((await register("2001:db8::2")).status).toBe(201);
    // The same IPv6 address written another way is the same client.
    expect((await register("2001:DB8:0:0::1")).status).toBe(429);
  });
});
