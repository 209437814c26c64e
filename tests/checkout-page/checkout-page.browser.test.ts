// The hosted checkout page in a real browser (Debian's Chromium, driven by playwright-core), served
// by the real Deno gateway on a database with a registered collection on anvil: the checkout,
// storefront and intruder origins of ./browser-fixtures.ts. The gateway sends no webhooks here
// (tests/e2e/checkout-storefront.browser.test.ts follows them).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { Browser } from "playwright-core";
import { parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayProcess } from "../../scripts/lib/gateway-process.ts";
import type { CheckoutWorld } from "../checkout/checkout-fixtures.ts";
import { type BrowserCheckout, type Logged, received, SCREENSHOTS, startBrowserCheckout, type Storefront } from "./browser-fixtures.ts";

let f: BrowserCheckout;
let w: CheckoutWorld;
let gateway: GatewayProcess;
let browser: Browser;
let seen: Logged[]; // every request that reached the gateway, through the proxy
let checkout: string;
let storefront: string;
let intruder: string;

beforeAll(async () => {
  f = await startBrowserCheckout({ WEBHOOK_DISPATCH: "false" });
  ({ w, gateway, browser, seen, checkout, storefront, intruder } = f);
}, 180_000);

afterAll(() => f?.close());

describe("the hosted checkout page", { timeout: 90_000 }, () => {
  it("is served with frame-ancestors of the session's allowedOrigin, same-origin scripts and no caching; small", async () => {
    const session = await f.newSession();
    expect(session.checkoutUrl).toBe(`${checkout}/checkout/${session.checkoutId}#clientSecret=${session.clientSecret}`);
    const response = await fetch(`${gateway.url}/checkout/${session.checkoutId}`);
    expect(response.status).toBe(200);
    const csp = response.headers.get("content-security-policy")!;
    expect(csp.split("; ")).toEqual(expect.arrayContaining([
      "default-src 'self'", "script-src 'self'", "connect-src 'self'", "img-src https: data:", `frame-ancestors ${storefront}`,
    ]));
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();

    // An unknown session still gets the page (which says so), framed by nobody.
    const unknown = await fetch(`${gateway.url}/checkout/0123456789abcdef01234567`);
    expect(unknown.status).toBe(200);
    expect(unknown.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    const notAnId = await fetch(`${gateway.url}/checkout/not-an-id`);
    expect(notAnId.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");

    // What a browser downloads for the page, gzipped as a compressing front would send it.
    const assets = [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toHaveLength(2);
    const bodies = [html, ...await Promise.all(assets.map(async (a) => (await fetch(`${gateway.url}/checkout/${a}`)).text()))];
    const raw = bodies.reduce((sum, b) => sum + Buffer.byteLength(b), 0);
    const gzip = bodies.reduce((sum, b) => sum + gzipSync(b).length, 0);
    console.log(`[checkout page] ${raw} bytes raw, ${gzip} bytes gzip (html + js + css)`);
    expect(gzip).toBeLessThan(100_000);
  });

  it("embedded by the SDK on its allowedOrigin: loaded reaches the storefront; the secret is in no request line or referrer", async () => {
    const session = await f.newSession();
    const { page, refused, errors } = await f.openPage(`${storefront}/cart`);
    const before = seen.length;
    const created = Date.now();
    await f.mount(page, session);
    await page.waitForFunction(() => (window as Storefront).received.length > 0, undefined, { timeout: 20_000 });
    const loadedAfter = Date.now() - created;
    const [loaded] = await received(page);
    expect(loaded).toEqual({
      origin: checkout,
      data: { type: "loaded", payload: { checkoutId: session.checkoutId, status: "PENDING" } },
      accepted: true,
      fromFrame: true,
    });
    console.log(`[checkout page] loaded ${loadedAfter} ms after the frame was created`);

    const frame = f.checkoutFrame(page)!;
    expect(await frame.evaluate(() => location.hash)).toBe(""); // removed from the address bar
    await frame.getByText("Concert ticket").waitFor();
    expect(await frame.locator("#price").textContent()).toBe("0.01 ETH");
    // No wallet in this browser: an error a person can act on, and no pay button.
    // (Reloading would not help: the secret is gone from the address bar, so it sends the person back to the store.)
    expect(await frame.locator("#error").textContent()).toMatch(/^No wallet found\..*open this checkout again from the store\.$/);
    expect(await frame.locator("[data-action=pay]").count()).toBe(0);

    const requests = seen.slice(before);
    expect(requests.map((r) => r.line)).toEqual(expect.arrayContaining([
      `GET /checkout/${session.checkoutId}?embed=1&parentOrigin=${encodeURIComponent(storefront)} HTTP/1.1`,
      `GET /api/v3/checkout/sessions/${session.checkoutId} HTTP/1.1`,
    ]));
    const secretIn = (value: unknown) => (JSON.stringify(value) ?? "").includes(session.clientSecret);
    expect(requests.filter((r) => secretIn(r.line) || secretIn(r.headers.referer))).toEqual([]);
    // The secret travels in its header only, and only on the session read.
    expect(requests.filter((r) => secretIn(r.headers)).map((r) => [r.line, r.headers["x-checkout-client-secret"]]))
      .toEqual([[`GET /api/v3/checkout/sessions/${session.checkoutId} HTTP/1.1`, session.clientSecret]]);
    // The page's own requests send no referrer at all; the frame's request, the storefront's origin only.
    expect(requests.find((r) => r.line.startsWith("GET /checkout/"))!.headers.referer).toBe(`${storefront}/`);
    expect(requests.filter((r) => r.line.startsWith("GET /api/")).map((r) => r.headers.referer)).toEqual([undefined]);

    expect(refused).toEqual(["https://store.example/ticket.png"]);
    expect(errors).toEqual([]);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOTS, "checkout-embedded-1280.png") });

    // Cancel tells the storefront.
    await frame.getByRole("button", { name: "Cancel" }).click();
    await page.waitForFunction(() => (window as Storefront).received.length > 1);
    expect((await received(page))[1]).toEqual({ origin: checkout, data: { type: "payment-canceled" }, accepted: true, fromFrame: true });
    await page.close();
  });

  it("another origin cannot embed it (CSP), and a forged parentOrigin shows no payment action", async () => {
    const session = await f.newSession();
    const { page, console: lines } = await f.openPage(`${intruder}/cart`);
    await f.mount(page, session);
    // Chromium refuses the frame: the checkout never runs there, so nothing is posted.
    await expect.poll(() => lines.some((l) => l.includes("frame-ancestors")), { timeout: 15_000 }).toBe(true);
    expect(f.checkoutFrame(page)).toBeUndefined();
    await page.waitForTimeout(500);
    expect(await received(page)).toEqual([]);
    await page.close();

    // Opened directly with another site's origin as parentOrigin: the origin check refuses it.
    const forged = `${checkout}/checkout/${session.checkoutId}?embed=1&parentOrigin=${encodeURIComponent(intruder)}#clientSecret=${session.clientSecret}`;
    const opened = await f.openPage(forged);
    await opened.page.getByText(`This checkout cannot be shown on ${intruder}.`).waitFor();
    expect(await opened.page.locator("[data-action=pay]").count()).toBe(0);
    expect(await opened.page.locator("#wallets").isHidden()).toBe(true);
    expect(await opened.page.locator("#cancel").isHidden()).toBe(true);
    expect(opened.errors).toEqual([]);
    await opened.page.close();
  });

  it("framed by another origin that forges parentOrigin: without the CSP, the page itself still shows no payment action", async () => {
    const session = await f.newSession();
    const { page, errors } = await f.openPage(`${intruder}/cart`);
    // Take frame-ancestors away (as an old browser ignoring it would) to reach the page's own check.
    await page.route(`${checkout}/checkout/${session.checkoutId}*`, async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers["content-security-policy"];
      await route.fulfill({ response, headers });
    });
    await page.evaluate(([checkoutId, clientSecret, checkoutOrigin, forged]) => {
      const frame = document.createElement("iframe");
      frame.src = `${checkoutOrigin}/checkout/${checkoutId}?embed=1&parentOrigin=${encodeURIComponent(forged)}#clientSecret=${clientSecret}`;
      document.getElementById("checkout")!.appendChild(frame);
    }, [session.checkoutId, session.clientSecret, checkout, storefront] as const);
    await expect.poll(() => f.checkoutFrame(page)?.getByText(`This checkout cannot be shown on ${storefront}.`).isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await f.checkoutFrame(page)!.locator("[data-action=pay]").count()).toBe(0);
    await page.waitForTimeout(300);
    expect(await received(page)).toEqual([]); // nothing posted: allowedOrigin is not the parent
    expect(errors).toEqual([]);
    await page.close();
  });

  it("says what to do when the wallet declines, the checkout has expired or the link is not valid", async () => {
    const session = await f.newSession();
    const { page, errors } = await f.openPage(`${storefront}/cart`);
    await page.addInitScript(() => {
      const declined = Object.assign(new Error("User rejected the request."), { code: 4001 });
      (window as unknown as { ethereum: unknown }).ethereum = { request: async () => { throw declined; } };
    });
    await page.reload({ waitUntil: "load" });
    await f.mount(page, session);
    await page.waitForFunction(() => (window as Storefront).received.length > 0, undefined, { timeout: 20_000 });
    const frame = f.checkoutFrame(page)!;
    await frame.getByRole("button", { name: "Pay with your browser wallet" }).click();
    await frame.getByText("You declined connecting in your wallet. Press Pay to try again.").waitFor();
    await page.waitForFunction(() => (window as Storefront).received.length > 1);
    expect((await received(page))[1]).toEqual({
      origin: checkout,
      data: { type: "payment-error", payload: { error: { code: "user_rejected", message: "You declined connecting in your wallet. Press Pay to try again." } } },
      accepted: true,
      fromFrame: true,
    });
    expect(await frame.getByRole("button", { name: "Pay with your browser wallet" }).isEnabled()).toBe(true); // may try again
    await page.close();

    // Past its expiry (behind the API's back), the page offers no payment.
    await w.t.owner`update checkout.sessions set expires_at = now() - interval '1 second' where id = ${session.checkoutId}`;
    const opened = await f.openPage(session.checkoutUrl);
    await opened.page.getByText("This checkout has expired. Go back to the store to start again.").waitFor();
    expect(await opened.page.locator("[data-action=pay]").count()).toBe(0);
    await opened.page.close();

    const LINK_NOT_VALID = "This checkout link is not valid. Go back to the store and start the checkout again.";
    const unknown = await f.openPage(`${checkout}/checkout/0123456789abcdef01234567#clientSecret=${session.clientSecret}`);
    await unknown.page.getByText(LINK_NOT_VALID).waitFor();
    const malformed = await f.openPage(`${checkout}/checkout/not-an-id#clientSecret=${session.clientSecret}`);
    await malformed.page.getByText(LINK_NOT_VALID).waitFor();
    expect([...errors, ...opened.errors, ...unknown.errors, ...malformed.errors]).toEqual([]);
    await Promise.all([unknown.page.close(), malformed.page.close()]);
  });

  it("a wallet on another chain that does not know the session's chain: says how to fix it, nothing is prepared", async () => {
    const session = await f.newSession();
    const before = seen.length;
    const { page, errors } = await f.openPage(`${storefront}/cart`);
    await page.addInitScript(() => {
      const unknownChain = Object.assign(new Error("Unrecognized chain ID."), { code: 4902 });
      const answers: Record<string, unknown> = { eth_requestAccounts: ["0x000000000000000000000000000000000000dEaD"], eth_chainId: "0x1" };
      (window as unknown as { ethereum: unknown }).ethereum = {
        request: async ({ method }: { method: string }) => {
          if (method in answers) return answers[method];
          throw unknownChain;
        },
      };
    });
    await page.reload({ waitUntil: "load" });
    await f.mount(page, session);
    await page.waitForFunction(() => (window as Storefront).received.length > 0, undefined, { timeout: 20_000 });
    const frame = f.checkoutFrame(page)!;
    await frame.getByRole("button", { name: "Pay with your browser wallet" }).click();
    const message = "Your wallet does not know Anvil (chain id 31337). Add it to your wallet, then press Pay again.";
    await frame.getByText(message).waitFor();
    await page.waitForFunction(() => (window as Storefront).received.length > 1);
    expect((await received(page))[1]!.data).toEqual({ type: "payment-error", payload: { error: { code: "chain_not_added", message } } });
    expect(seen.slice(before).filter((r) => r.line.includes("/payments"))).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("opened from checkoutUrl with a wallet: item, price, expiry and a pay button, at 1280 and 375 px", async () => {
    const session = await f.newSession();
    for (const width of [1280, 375]) {
      const page = await browser.newPage({ viewport: { width, height: 760 } });
      // A wallet announcing itself through EIP-6963 (it is never asked anything here).
      await page.addInitScript(() => {
        const provider = { request: async () => { throw new Error("not used"); } };
        const info = { uuid: "5f6c2a61-0b7e-4c1e-9d7a-1f2e3d4c5b6a", name: "Test Wallet", icon: "data:image/svg+xml,<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 1 1'><rect width='1' height='1' fill='%23f6851b'/></svg>", rdns: "org.example.wallet" };
        const announce = () => window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
        window.addEventListener("eip6963:requestProvider", announce);
      });
      await page.route("**/*", (route) => (["127.0.0.1", "localhost"].includes(new URL(route.request().url()).hostname) ? route.continue() : route.abort()));
      await page.goto(session.checkoutUrl, { waitUntil: "load" });
      const pay = page.locator("[data-action=pay]");
      await pay.waitFor();
      expect(await pay.textContent()).toBe("Pay with Test Wallet");
      expect(await page.locator("#expiry").textContent()).toMatch(/^Expires in (29|30):\d\d$/);
      expect(page.url()).toBe(`${checkout}/checkout/${session.checkoutId}`); // the fragment is gone
      expect(await page.locator("#cancel").isHidden()).toBe(true); // nobody to tell: not embedded
      // Nothing wider than the viewport (a phone must not scroll sideways).
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: join(SCREENSHOTS, `checkout-page-${width}.png`), fullPage: true });
      await page.close();
    }
  });


  it("pays in the native currency with an injected wallet backed by anvil: payment-success, then the session reads COMPLETED", async () => {
    const session = await f.staticPriceSession(10n ** 16n);
    const { page, frame, outcome } = await f.payFromStorefront(session, w.anvil.accounts[2]!);
    expect(await frame.locator("#steps").textContent()).toBe("Connect your walletSwitch networkPayConfirm on chain");
    await page.screenshot({ path: join(SCREENSHOTS, "checkout-paid-1280.png") });
    await f.expectCompleted(session, outcome);
    await page.close();
  });

  it("pays in an ERC-20: approves first, waits for its receipt through the wallet, then pays", async () => {
    const token = await w.deployToken(6);
    const customer = w.anvil.accounts[3]!;
    await w.chain.publicClient.waitForTransactionReceipt({
      hash: await w.chain.wallet(w.anvil.accounts[0]!).writeContract({ address: token, abi: testTokenAbi, functionName: "mint", args: [customer.address, 10_000_000n] }),
    });
    const session = await f.staticPriceSession(2_500_000n, token);
    const { page, frame, outcome } = await f.payFromStorefront(session, customer, async (paying) => expect(await paying.locator("#price").textContent()).toMatch(/^2\.5 TUSD$/));
    expect(await frame.locator("#steps").textContent()).toBe("Connect your walletSwitch networkApprove the tokenPayConfirm on chain");
    await f.expectCompleted(session, outcome);
    expect(await w.chain.publicClient.readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [customer.address] })).toBe(7_500_000n);
    await page.close();
  });
});

const testTokenAbi = parseAbi(["function mint(address to, uint256 amount)", "function balanceOf(address) view returns (uint256)"]);
