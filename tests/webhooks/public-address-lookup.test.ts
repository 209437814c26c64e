// The shared SSRF lookup guard (supabase/functions/_shared/outbound/public-address-lookup.ts) that the
// webhook dispatcher and the OAuth client ID metadata document fetch both connect through in
// production. Names resolve through an injected resolver (no DNS, no network), except `localhost`.
import type { LookupAddress } from "node:dns";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import {
  publicAddressLookup,
  type PublicAddressLookupOptions,
  refusedAddressLiteral,
  requestHostname,
  type ResolveAll,
} from "../../supabase/functions/_shared/outbound/public-address-lookup.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

const family = (address: string) => (address.includes(":") ? 6 : 4);
/** A resolver that answers every name with `addresses`. */
const answering = (...addresses: string[]): ResolveAll => (_hostname, callback) =>
  queueMicrotask(() => callback(null, addresses.map((address) => ({ address, family: family(address) }))));

interface LookupResult {
  error: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family?: number;
}

function lookUp(resolveAll: ResolveAll | undefined, hostname: string, all = false, describe?: PublicAddressLookupOptions["describe"]) {
  const lookup = publicAddressLookup({ resolveAll, describe });
  return new Promise<LookupResult>((resolve) => lookup(hostname, { all }, (error, address, family) => resolve({ error, address, family })));
}

describe("publicAddressLookup", () => {
  it.each([
    ["127.0.0.1", "loopback IPv4 address"],
    ["10.20.30.40", "private IPv4 address"],
    ["169.254.169.254", "link-local IPv4 address"],
    ["::1", "loopback IPv6 address"],
    ["fc00::1", "unique-local IPv6 address"],
    ["fd12:3456::1", "unique-local IPv6 address"],
    ["::ffff:10.0.0.1", "private IPv4 address"],
    ["::ffff:169.254.169.254", "link-local IPv4 address"],
    ["100.64.0.1", "carrier-grade NAT IPv4 address"],
  ])("refuses a name resolving to %s (%s)", async (address, reason) => {
    const { error, address: answered } = await lookUp(answering(address), "store.example");
    expect(error?.code).toBe("EREFUSEDADDRESS");
    expect(error?.message).toBe(`refused store.example (${address}): ${reason}`);
    expect(answered).toEqual([]);
  });

  it("refuses a name when any one of its addresses is private, naming the first such", async () => {
    const { error } = await lookUp(answering("93.184.215.14", "2606:4700::1111", "10.0.0.7", "::1"), "rebind.example", true);
    expect(error?.code).toBe("EREFUSEDADDRESS");
    expect(error?.message).toBe("refused rebind.example (10.0.0.7): private IPv4 address");
  });

  it("passes a public name as node's lookup does: the first address, or all of them with `all`", async () => {
    const resolver = answering("93.184.215.14", "2606:4700::1111");
    expect(await lookUp(resolver, "store.example")).toEqual({ error: null, address: "93.184.215.14", family: 4 });
    expect(await lookUp(resolver, "store.example", true)).toEqual({
      error: null,
      address: [{ address: "93.184.215.14", family: 4 }, { address: "2606:4700::1111", family: 6 }],
      family: undefined,
    });
    expect(await lookUp(answering("::ffff:8.8.8.8"), "mapped.example")).toEqual({ error: null, address: "::ffff:8.8.8.8", family: 6 });
  });

  it("passes the resolver's error on, and fails a name with no address with ENOTFOUND", async () => {
    const failing: ResolveAll = (hostname, callback) => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" }), []);
    const failed = await lookUp(failing, "nowhere.invalid");
    expect(failed.error?.message).toBe("getaddrinfo ENOTFOUND nowhere.invalid");
    const empty = await lookUp(answering(), "empty.example");
    expect(empty.error).toMatchObject({ code: "ENOTFOUND", message: "empty.example has no address" });
  });

  it("words the refusal as the caller asks", async () => {
    const { error } = await lookUp(answering("127.0.0.1"), "localhost", false, ({ hostname, address, reason }) => `refused ${hostname} (${address}: ${reason})`);
    expect(error?.message).toBe("refused localhost (127.0.0.1: loopback IPv4 address)");
  });

  it("resolves with node:dns by default: localhost is refused", async () => {
    const { error } = await lookUp(undefined, "localhost", true);
    expect(error?.code).toBe("EREFUSEDADDRESS");
    expect(error?.message).toMatch(/^refused localhost \((127\.0\.0\.1|::1)\): loopback IPv(4|6) address$/);
  });

  it("as node:http's lookup, refuses before connecting: the server hears nothing", async () => {
    let connections = 0;
    const server = http.createServer((_request, response) => response.end("reached"));
    server.on("connection", () => connections++);
    await listenOnLoopback(server);
    try {
      const { port } = server.address() as AddressInfo;
      const outcome = await new Promise<string>((resolve) => {
        const request = http.request({ hostname: "internal.example", port, path: "/", agent: false, lookup: publicAddressLookup({ resolveAll: answering("127.0.0.1") }) });
        request.on("response", (response) => resolve(`status ${response.statusCode}`));
        request.on("error", (error: NodeJS.ErrnoException) => resolve(`${error.code}: ${error.message}`));
        request.end();
      });
      expect(outcome).toBe("EREFUSEDADDRESS: refused internal.example (127.0.0.1): loopback IPv4 address");
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("refusedAddressLiteral (literals are never looked up)", () => {
  it.each([
    ["https://127.0.0.1/hook", "loopback IPv4 address"],
    ["https://10.1.2.3:8443/hook", "private IPv4 address"],
    ["https://169.254.169.254/latest/meta-data", "link-local IPv4 address"],
    ["https://[::1]/hook", "loopback IPv6 address"],
    ["https://[fc00::1]/hook", "unique-local IPv6 address"],
    ["https://[::ffff:127.0.0.1]/hook", "loopback IPv4 address"],
    ["https://[::ffff:a9fe:a9fe]/hook", "link-local IPv4 address"],
  ])("refuses %s (%s)", (url, reason) => {
    expect(refusedAddressLiteral(requestHostname(new URL(url)))).toBe(reason);
  });

  it("passes a public literal and leaves names to the lookup", () => {
    for (const url of ["https://93.184.215.14/hook", "https://[2606:4700::1111]/hook", "https://localhost/hook", "https://store.example/hook"]) {
      expect(refusedAddressLiteral(requestHostname(new URL(url))), url).toBeNull();
    }
    expect(requestHostname(new URL("https://[::1]:8443/x"))).toBe("::1");
  });
});
