// The hosted checkout page in a real browser (Debian's Chromium, driven by playwright-core), served
// by the real Deno gateway on a database with a registered collection on anvil. Three loopback
// origins:
//   checkout    http://127.0.0.1:<proxy>     a recording proxy in front of the gateway, so the test
//                                            sees every request line and header the page sends
//   storefront  http://localhost:<store>     the session's allowedOrigin; embeds the page with the
//                                            SDK's classic script as the gateway serves it
//   intruder    http://127.0.0.1:<store>     the same store server on another origin
// Every request to a host that is not loopback is refused (the item's https image among them).
import { existsSync, mkdirSync } from "node:fs";
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type Browser, type Frame, type Page } from "playwright-core";
import { type HDAccount, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_INSTALL, CHROMIUM_PATH } from "../../scripts/lib/chromium.ts";
import { startGatewayProcess, type GatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import type { UserWithKey } from "../setup/test-context.ts";
import { type CheckoutWorld, sessionRequest, startCheckoutWorld } from "../checkout/checkout-fixtures.ts";

type Logged = { line: string; headers: IncomingMessage["headers"] };
type Received = { origin: string; data: { type: string; payload?: unknown }; accepted: boolean; fromFrame: boolean };
type Storefront = typeof window & {
  EventhubSDK: typeof import("../../packages/sdk/src/index.ts");
  received: Received[];
  paymentFrame?: HTMLIFrameElement;
};
type Session = { checkoutId: string; clientSecret: string; checkoutUrl: string };

const SCREENSHOTS = join(REPO_ROOT, ".local", "screenshots");

let w: CheckoutWorld;
let owner: UserWithKey;
let collectionId: string;
let gateway: GatewayProcess;
let browser: Browser;
const servers: Server[] = [];
const seen: Logged[] = []; // every request that reached the gateway, through the proxy
let checkout: string;
let storefront: string;
let intruder: string;

function listen(server: Server): Promise<number> {
  servers.push(server);
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

/** The storefront: a cart page whose listener records each message with both checks SPEC.md 6.2 asks for. */
const storefrontPage = (checkoutOrigin: string) => `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Store</title></head>
<body style="margin:0;font-family:sans-serif"><h2 style="margin:12px">Your cart</h2>
<div id="checkout" style="height: 720px"></div>
<script src="${checkoutOrigin}/sdk/v1/eventhub-sdk.js"></script>
<script>
  window.received = [];
  window.addEventListener("message", (event) => {
    window.received.push({
      origin: event.origin,
      data: event.data,
      accepted: window.EventhubSDK.isPaymentEvent(event, ${JSON.stringify(checkoutOrigin)}),
      fromFrame: !!window.paymentFrame && event.source === window.paymentFrame.contentWindow,
    });
  });
</script></body></html>`;

beforeAll(async () => {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}. Install it with: ${CHROMIUM_INSTALL}`);
  w = await startCheckoutWorld();
  owner = await w.ownerWithWallet(w.anvil.accounts[1]!);
  collectionId = (await w.registeredCollection(owner, w.anvil.accounts[1]!)).id;

  // The proxy's port first: the gateway's CHECKOUT_UI_URL names it.
  let gatewayPort = 0;
  const proxy = createServer((req, res) => {
    seen.push({ line: `${req.method} ${req.url} HTTP/${req.httpVersion}`, headers: req.headers });
    const upstream = forward({ host: "127.0.0.1", port: gatewayPort, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on("error", () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  checkout = `http://127.0.0.1:${await listen(proxy)}`;

  gateway = await startGatewayProcess({
    DATABASE_URL: w.t.url,
    EVM_CHAINS: JSON.stringify([{ chainId: w.anvil.chainId, rpcUrl: w.anvil.rpcUrl, confirmations: 1 }]),
    SECRETS_ENCRYPTION_KEY: w.t.config.SECRETS_ENCRYPTION_KEY!,
    CHECKOUT_UI_URL: checkout,
    WEBHOOK_DISPATCH: "false",
  }, 60_000);
  gatewayPort = Number(new URL(gateway.url).port);

  const store = createServer((req, res) => {
    res.writeHead(req.url === "/cart" ? 200 : 404, { "content-type": "text/html", "cache-control": "no-store" });
    res.end(req.url === "/cart" ? storefrontPage(checkout) : "not found");
  });
  const storePort = await listen(store);
  storefront = `http://localhost:${storePort}`;
  intruder = `http://127.0.0.1:${storePort}`;

  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.stop("SIGKILL");
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  await w?.close();
});

/** A new session for the storefront's origin, created through the gateway's API. */
async function newSession(allowedOrigin = storefront): Promise<Session> {
  const response = await fetch(`${gateway.url}/api/v3/checkout/sessions`, {
    method: "POST",
    headers: { "x-api-key": owner.key, "content-type": "application/json" },
    body: JSON.stringify(sessionRequest(collectionId, { allowedOrigin })),
  });
  expect(response.status).toBe(201);
  return response.json();
}

/** A page with every request to a host other than loopback refused; collects what was refused, errors and console lines. */
async function openPage(url: string, width = 1280): Promise<{ page: Page; refused: string[]; errors: string[]; console: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const refused: string[] = [];
  const errors: string[] = [];
  const console: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => console.push(message.text()));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (["127.0.0.1", "localhost"].includes(new URL(url).hostname)) return route.continue();
    refused.push(url);
    return route.abort();
  });
  await page.goto(url, { waitUntil: "load" });
  return { page, refused, errors, console };
}

/** Mounts the checkout with the SDK as a storefront does. */
function mount(page: Page, session: Session) {
  return page.evaluate(([checkoutId, clientSecret, checkoutOrigin]) => {
    const store = window as Storefront;
    const { frame } = store.EventhubSDK.createPaymentFrame({
      el: document.getElementById("checkout")!,
      params: { target: "checkout", checkoutId, clientSecret, checkoutOrigin },
    });
    store.paymentFrame = frame;
  }, [session.checkoutId, session.clientSecret, checkout] as const);
}

const received = (page: Page) => page.evaluate(() => (window as Storefront).received);
const checkoutFrame = (page: Page): Frame | undefined => page.frames().find((f) => f.url().startsWith(`${checkout}/checkout/`));

describe("the hosted checkout page", { timeout: 90_000 }, () => {
  it("is served with frame-ancestors of the session's allowedOrigin, same-origin scripts and no caching; small", async () => {
    const session = await newSession();
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
    const session = await newSession();
    const { page, refused, errors } = await openPage(`${storefront}/cart`);
    const before = seen.length;
    const created = Date.now();
    await mount(page, session);
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

    const frame = checkoutFrame(page)!;
    expect(await frame.evaluate(() => location.hash)).toBe(""); // removed from the address bar
    await frame.getByText("Concert ticket").waitFor();
    expect(await frame.locator("#price").textContent()).toBe("0.01 ETH");
    // No wallet in this browser: an error a person can act on, and no pay button.
    expect(await frame.locator("#error").textContent()).toMatch(/^No wallet found/);
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
    const session = await newSession();
    const { page, console: lines } = await openPage(`${intruder}/cart`);
    await mount(page, session);
    // Chromium refuses the frame: the checkout never runs there, so nothing is posted.
    await expect.poll(() => lines.some((l) => l.includes("frame-ancestors")), { timeout: 15_000 }).toBe(true);
    expect(checkoutFrame(page)).toBeUndefined();
    await page.waitForTimeout(500);
    expect(await received(page)).toEqual([]);
    await page.close();

    // Opened directly with another site's origin as parentOrigin: the origin check refuses it.
    const forged = `${checkout}/checkout/${session.checkoutId}?embed=1&parentOrigin=${encodeURIComponent(intruder)}#clientSecret=${session.clientSecret}`;
    const opened = await openPage(forged);
    await opened.page.getByText(`This checkout cannot be shown on ${intruder}.`).waitFor();
    expect(await opened.page.locator("[data-action=pay]").count()).toBe(0);
    expect(await opened.page.locator("#wallets").isHidden()).toBe(true);
    expect(await opened.page.locator("#cancel").isHidden()).toBe(true);
    expect(opened.errors).toEqual([]);
    await opened.page.close();
  });

  it("framed by another origin that forges parentOrigin: without the CSP, the page itself still shows no payment action", async () => {
    const session = await newSession();
    const { page, errors } = await openPage(`${intruder}/cart`);
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
    await expect.poll(() => checkoutFrame(page)?.getByText(`This checkout cannot be shown on ${storefront}.`).isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await checkoutFrame(page)!.locator("[data-action=pay]").count()).toBe(0);
    await page.waitForTimeout(300);
    expect(await received(page)).toEqual([]); // nothing posted: allowedOrigin is not the parent
    expect(errors).toEqual([]);
    await page.close();
  });

  it("says what to do when the wallet declines, the checkout has expired or the link is not valid", async () => {
    const session = await newSession();
    const { page, errors } = await openPage(`${storefront}/cart`);
    await page.addInitScript(() => {
      const declined = Object.assign(new Error("User rejected the request."), { code: 4001 });
      (window as unknown as { ethereum: unknown }).ethereum = { request: async () => { throw declined; } };
    });
    await page.reload({ waitUntil: "load" });
    await mount(page, session);
    await page.waitForFunction(() => (window as Storefront).received.length > 0, undefined, { timeout: 20_000 });
    const frame = checkoutFrame(page)!;
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
    const opened = await openPage(session.checkoutUrl);
    await opened.page.getByText("This checkout has expired. Go back to the store to start again.").waitFor();
    expect(await opened.page.locator("[data-action=pay]").count()).toBe(0);
    await opened.page.close();

    const LINK_NOT_VALID = "This checkout link is not valid. Go back to the store and start the checkout again.";
    const unknown = await openPage(`${checkout}/checkout/0123456789abcdef01234567#clientSecret=${session.clientSecret}`);
    await unknown.page.getByText(LINK_NOT_VALID).waitFor();
    const malformed = await openPage(`${checkout}/checkout/not-an-id#clientSecret=${session.clientSecret}`);
    await malformed.page.getByText(LINK_NOT_VALID).waitFor();
    expect([...errors, ...opened.errors, ...unknown.errors, ...malformed.errors]).toEqual([]);
    await Promise.all([unknown.page.close(), malformed.page.close()]);
  });

  it("a wallet on another chain that does not know the session's chain: says how to fix it, nothing is prepared", async () => {
    const session = await newSession();
    const before = seen.length;
    const { page, errors } = await openPage(`${storefront}/cart`);
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
    await mount(page, session);
    await page.waitForFunction(() => (window as Storefront).received.length > 0, undefined, { timeout: 20_000 });
    const frame = checkoutFrame(page)!;
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
    const session = await newSession();
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
    const session = await staticPriceSession(10n ** 16n);
    const { page, frame, outcome } = await payFromStorefront(session, w.anvil.accounts[2]!);
    expect(await frame.locator("#steps").textContent()).toBe("Connect your walletSwitch networkPayConfirm on chain");
    await page.screenshot({ path: join(SCREENSHOTS, "checkout-paid-1280.png") });
    await expectCompleted(session, outcome);
    await page.close();
  });

  it("pays in an ERC-20: approves first, waits for its receipt through the wallet, then pays", async () => {
    const token = await w.deployToken(6);
    const customer = w.anvil.accounts[3]!;
    await w.chain.publicClient.waitForTransactionReceipt({
      hash: await w.chain.wallet(w.anvil.accounts[0]!).writeContract({ address: token, abi: testTokenAbi, functionName: "mint", args: [customer.address, 10_000_000n] }),
    });
    const session = await staticPriceSession(2_500_000n, token);
    const { page, frame, outcome } = await payFromStorefront(session, customer, async (f) => expect(await f.locator("#price").textContent()).toMatch(/^2\.5 tokens \(0x[0-9a-fA-F]{4}…[0-9a-fA-F]{4}\)$/));
    expect(await frame.locator("#steps").textContent()).toBe("Connect your walletSwitch networkApprove the tokenPayConfirm on chain");
    await expectCompleted(session, outcome);
    expect(await w.chain.publicClient.readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [customer.address] })).toBe(7_500_000n);
    await page.close();
  });
});

const testTokenAbi = parseAbi(["function mint(address to, uint256 amount)", "function balanceOf(address) view returns (uint256)"]);

/** A session of a new static-price collection (no voucher from the service's key needed), paid in `token` or the native currency. */
async function staticPriceSession(price: bigint, token: `0x${string}` | null = null): Promise<Session> {
  const address = await w.deploy(w.anvil.accounts[1]!.address, { pricing: "static", staticPrice: price, ...(token ? { paymentToken: token } : {}) });
  const registered = await w.register(owner.key, { address, pricing: "static", mintPrice: price.toString(), paymentToken: token });
  expect(registered.status).toBe(201);
  const request = sessionRequest((await registered.json()).id, { allowedOrigin: storefront });
  request.items[0]!.mintPrice = price.toString();
  const response = await fetch(`${gateway.url}/api/v3/checkout/sessions`, {
    method: "POST",
    headers: { "x-api-key": owner.key, "content-type": "application/json" },
    body: JSON.stringify(request),
  });
  expect(response.status).toBe(201);
  return response.json();
}

/**
 * Embeds `session` in the storefront with a wallet for `customer`: an EIP-1193 provider in every
 * frame whose requests this test answers (signing with viem, reading from anvil), as window.ethereum.
 * Presses Pay and waits for the storefront's second message.
 */
async function payFromStorefront(session: Session, customer: HDAccount, beforePaying?: (frame: Frame) => Promise<void>) {
  const wallet = w.chain.wallet(customer);
  const { page, refused, errors } = await openPage(`${storefront}/cart`);
  await page.exposeFunction("anvilWallet", async (method: string, params: unknown[]) => {
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return [customer.address];
      case "eth_chainId":
        return `0x${w.anvil.chainId.toString(16)}`;
      case "eth_sendTransaction": {
        const [tx] = params as [{ to: `0x${string}`; data: `0x${string}`; value?: string }];
        return wallet.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value ?? 0) });
      }
      default:
        return w.chain.publicClient.request({ method, params } as never);
    }
  });
  await page.addInitScript(() => {
    const call = (window as unknown as { anvilWallet: (method: string, params: unknown[]) => Promise<unknown> }).anvilWallet;
    (window as unknown as { ethereum: unknown }).ethereum = { request: ({ method, params }: { method: string; params?: unknown[] }) => call(method, params ?? []) };
  });
  await page.reload({ waitUntil: "load" }); // init scripts run from the next document on
  await mount(page, session);
  await page.waitForFunction(() => (window as Storefront).received.length > 0, undefined, { timeout: 20_000 });
  const frame = checkoutFrame(page)!;
  await beforePaying?.(frame);
  await frame.getByRole("button", { name: "Pay with your browser wallet" }).click();
  await page.waitForFunction(() => (window as Storefront).received.length > 1, undefined, { timeout: 60_000 });
  const outcome = (await received(page))[1]!;
  expect(outcome).toMatchObject({ origin: checkout, data: { type: "payment-success", payload: { checkoutId: session.checkoutId } }, accepted: true, fromFrame: true });
  await frame.getByText("Payment received. Thank you!").waitFor();
  expect(refused).toEqual(["https://store.example/ticket.png"]);
  expect(errors).toEqual([]);
  return { page, frame, outcome };
}

/** The session as the API reads it: COMPLETED by the transaction the page reported to the storefront. */
async function expectCompleted(session: Session, outcome: Received) {
  const read = await fetch(`${gateway.url}/api/v3/checkout/sessions/${session.checkoutId}`, { headers: { "x-checkout-client-secret": session.clientSecret } });
  expect(await read.json()).toMatchObject({ status: "COMPLETED", transactionHash: (outcome.data.payload as { transactionHash: string }).transactionHash });
}
