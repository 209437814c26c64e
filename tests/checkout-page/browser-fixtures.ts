// The hosted checkout in a real browser (Debian's Chromium, driven by playwright-core), served by
// the real Deno gateway on a database with a registered collection on anvil. Three loopback
// origins:
//   checkout    http://127.0.0.1:<proxy>     a recording proxy in front of the gateway, so the test
//                                            sees every request line and header the page sends
//   storefront  http://localhost:<store>     the sessions' allowedOrigin; embeds the page with the
//                                            SDK's classic script as the gateway serves it
//   intruder    http://127.0.0.1:<store>     the same store server on another origin
// Every request to a host that is not loopback is refused (the item's https image among them).
// Used by tests/checkout-page/checkout-page.browser.test.ts and tests/e2e/checkout-storefront.browser.test.ts.
// startHostedBrowserCheckout is the same with the api function served as on Supabase
// (tests/hosted/edge-functions.ts) in place of the proxy and the gateway: the checkout origin is the
// platform's, the pages under /functions/v1/api (tests/hosted/checkout.hosted.test.ts).
import { existsSync } from "node:fs";
import { createServer, request as forward, type IncomingMessage, type Server } from "node:http";
import { join } from "node:path";
import { chromium, type Browser, type Frame, type Page } from "playwright-core";
import type { HDAccount } from "viem";
import { expect } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_INSTALL, CHROMIUM_PATH } from "../../scripts/lib/chromium.ts";
import { startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { type CheckoutWorld, sessionRequest, startCheckoutWorld } from "../checkout/checkout-fixtures.ts";
import { serveHostedFunctions } from "../hosted/edge-functions.ts";
import { TEST_JWT_SECRET } from "../setup/test-context.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

export type Logged = { line: string; headers: IncomingMessage["headers"] };
export type Received = { origin: string; data: { type: string; payload?: unknown }; accepted: boolean; fromFrame: boolean };
export type Storefront = typeof window & {
  EventhubSDK: typeof import("../../packages/sdk/src/index.ts");
  received: Received[];
  paymentFrame?: HTMLIFrameElement;
};
/** The create call's answer, as the store's backend gets it. */
export type Session = { checkoutId: string; clientSecret: string; checkoutUrl: string; webhookSecret: string };

export const SCREENSHOTS = join(REPO_ROOT, ".local", "screenshots");

/**
 * Where the service under test answers: the checkout origin, the path of its pages there (the SDK's
 * checkoutPath) and its REST API's base URL.
 */
type Service = { checkout: string; pagesPath: string; api: string };

/** The storefront: a cart page whose listener records each message with both checks SPEC.md 6.2 asks for. */
const storefrontPage = ({ checkout: checkoutOrigin, pagesPath }: Service) => `<!doctype html><html><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Store</title></head>
<body style="margin:0;font-family:sans-serif"><h2 style="margin:12px">Your cart</h2>
<div id="checkout" style="height: 720px"></div>
<script src="${checkoutOrigin}${pagesPath}/sdk/v1/eventhub-sdk.js"></script>
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

/** What the storefront's listener has recorded so far. */
export const received = (page: Page) => page.evaluate(() => (window as Storefront).received);

export type BrowserCheckout = Awaited<ReturnType<typeof startBrowserCheckout>>;

/**
 * The world, the proxy, the gateway (started with `gatewayEnv` on top of the world's database,
 * chain and key), the store server and Chromium. close() stops them all.
 */
export function startBrowserCheckout(gatewayEnv: Record<string, string>) {
  return startInBrowser(async (w, listen, onClose) => {
    const seen: Logged[] = []; // every request that reached the gateway, through the proxy
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
    const checkout = `http://127.0.0.1:${await listen(proxy)}`;

    const gateway = await startGatewayProcess({
      DATABASE_URL: w.t.url,
      EVM_CHAINS: JSON.stringify([{ chainId: w.anvil.chainId, rpcUrl: w.anvil.rpcUrl, confirmations: 1 }]),
      SECRETS_ENCRYPTION_KEY: w.t.config.SECRETS_ENCRYPTION_KEY!,
      CHECKOUT_UI_URL: checkout,
      ...gatewayEnv,
    }, 60_000);
    onClose(() => gateway.stop("SIGKILL"));
    gatewayPort = Number(new URL(gateway.url).port);
    return { checkout, pagesPath: "", api: `${gateway.url}/api`, gateway, seen };
  });
}

/**
 * The world, the api function served as on Supabase (PUBLIC_API_ROOT <platform>/functions/v1, so
 * checkoutUrl and the SDK script are under /functions/v1/api), the store server and Chromium.
 */
export function startHostedBrowserCheckout() {
  return startInBrowser(async (w, _listen, onClose) => {
    const hosted = await serveHostedFunctions(["api"], {
      GATEWAY_DATABASE_URL: w.t.config.GATEWAY_DATABASE_URL, APP_ENV: "test", JWT_SECRET: TEST_JWT_SECRET,
      SECRETS_ENCRYPTION_KEY: w.t.config.SECRETS_ENCRYPTION_KEY!,
      EVM_CHAINS: JSON.stringify([{ chainId: w.anvil.chainId, rpcUrl: w.anvil.rpcUrl, confirmations: 1 }]),
    }, { timeoutMs: 240_000 });
    onClose(() => hosted.stop());
    const pagesPath = `${new URL(hosted.root).pathname}/api`;
    return { checkout: hosted.origin, pagesPath, api: `${hosted.root}/api`, hosted };
  });
}

/**
 * The world, then the service `serve` starts on it (registering what to stop with onClose), the
 * store server and Chromium. close() stops them all (also when starting fails half-way).
 */
async function startInBrowser<S extends Service>(
  serve: (w: CheckoutWorld, listen: (server: Server) => Promise<number>, onClose: (stop: () => Promise<unknown>) => void) => Promise<S>,
) {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}. Install it with: ${CHROMIUM_INSTALL}`);
  const servers: Server[] = [];
  const listen = (server: Server): Promise<number> => {
    servers.push(server);
    return listenOnLoopback(server);
  };

  const w = await startCheckoutWorld();
  // What has started, for close() (also when starting fails half-way).
  let startedBrowser: Browser | undefined;
  const stops: Array<() => Promise<unknown>> = [];
  async function close() {
    await startedBrowser?.close();
    for (const stop of stops.reverse()) await stop();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await w.close();
  }
  try {
    return await started();
  } catch (error) {
    await close();
    throw error;
  }

  async function started() {
    const owner = await w.ownerWithWallet(w.anvil.accounts[1]!);
    const collectionId = (await w.registeredCollection(owner, w.anvil.accounts[1]!)).id;
    const service = await serve(w, listen, (stop) => stops.push(stop));
    const { checkout, pagesPath, api } = service;

    const store = createServer((req, res) => {
      res.writeHead(req.url === "/cart" ? 200 : 404, { "content-type": "text/html", "cache-control": "no-store" });
      res.end(req.url === "/cart" ? storefrontPage(service) : "not found");
    });
    const storePort = await listen(store);
    const storefront = `http://localhost:${storePort}`;
    const intruder = `http://127.0.0.1:${storePort}`;

    const browser = startedBrowser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });

    /** Creates a session through the service's API, as the store's backend does. */
    async function createSession(request: ReturnType<typeof sessionRequest>): Promise<Session> {
      const response = await fetch(`${api}/v3/checkout/sessions`, {
        method: "POST",
        headers: { "x-api-key": owner.key, "content-type": "application/json" },
        body: JSON.stringify(request),
      });
      expect(response.status).toBe(201);
      return response.json();
    }

    /** A new session for the storefront's origin (or `allowedOrigin`) of the dynamic-price collection. */
    const newSession = (allowedOrigin = storefront) => createSession(sessionRequest(collectionId, { allowedOrigin }));

    /**
     * A session of a new static-price collection (no voucher from the service's key needed), paid in
     * `token` or the native currency; `overrides` replace fields of the creation request.
     */
    async function staticPriceSession(price: bigint, token: `0x${string}` | null = null, overrides: Record<string, unknown> = {}): Promise<Session> {
      const address = await w.deploy(w.anvil.accounts[1]!.address, { pricing: "static", staticPrice: price, ...(token ? { paymentToken: token } : {}) });
      const registered = await w.register(owner.key, { address, pricing: "static", mintPrice: price.toString(), paymentToken: token });
      expect(registered.status).toBe(201);
      const request = sessionRequest((await registered.json()).id, { allowedOrigin: storefront, ...overrides });
      request.items[0]!.mintPrice = price.toString();
      return createSession(request);
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
      return page.evaluate(([checkoutId, clientSecret, checkoutOrigin, checkoutPath]) => {
        const store = window as Storefront;
        const { frame } = store.EventhubSDK.createPaymentFrame({
          el: document.getElementById("checkout")!,
          params: { target: "checkout", checkoutId, clientSecret, checkoutOrigin, checkoutPath },
        });
        store.paymentFrame = frame;
      }, [session.checkoutId, session.clientSecret, checkout, pagesPath] as const);
    }

    const checkoutFrame = (page: Page): Frame | undefined => page.frames().find((f) => f.url().startsWith(`${checkout}${pagesPath}/checkout/`));

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
      const read = await fetch(`${api}/v3/checkout/sessions/${session.checkoutId}`, { headers: { "x-checkout-client-secret": session.clientSecret } });
      expect(await read.json()).toMatchObject({ status: "COMPLETED", transactionHash: (outcome.data.payload as { transactionHash: string }).transactionHash });
    }

    return {
      ...service, w, owner, browser, storefront, intruder,
      newSession, staticPriceSession, openPage, mount, checkoutFrame, payFromStorefront, expectCompleted, close,
    };
  }
}
