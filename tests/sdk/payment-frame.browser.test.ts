// @eventhub/sdk in a real browser (Debian's Chromium, driven by playwright-core). Two tiny local
// servers on two loopback origins: a storefront (http://127.0.0.1:<port>) whose page loads the SDK
// as built by packages/sdk/scripts/build.mjs (ESM, or the classic script), and a fake hosted
// checkout (http://localhost:<port>) that posts messages to its parent with targetOrigin = the
// parentOrigin the SDK passed. The same checkout server reached as http://127.0.0.1:<port> plays an
// impostor on another origin. Every request to any other host is refused.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_INSTALL, CHROMIUM_PATH } from "../../scripts/lib/chromium.ts";
import type { PaymentFrameParams } from "../../packages/sdk/src/index.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

const CHECKOUT_ID = "65a1f0c2b3d4e5f6a7b8c9d0";
const SECRET = "cs_test_S3cr3t/+=&?x";
const SECRET_FORMS = [SECRET, encodeURIComponent(SECRET), "S3cr3t"];

type Logged = { origin: string; line: string; headers: IncomingMessage["headers"] };
type Received = { origin: string; data: unknown; accepted: boolean; acceptedByDefault: boolean; fromFrame: boolean };
/** The storefront page's globals (a cast inside page.evaluate, not a global augmentation of Window). */
type Storefront = typeof window & {
  sdk: typeof import("../../packages/sdk/src/index.ts");
  EventhubSDK: typeof import("../../packages/sdk/src/index.ts");
  received: Received[];
  paymentFrame?: HTMLIFrameElement;
  checkoutOrigin: string;
};

let buildDir: string;
let browser: Browser;
const servers: Server[] = [];
const log: Logged[] = [];
let storefront: string; // http://127.0.0.1:<port>
let checkout: string; // http://localhost:<port>
let impostor: string; // http://127.0.0.1:<same port as checkout>

/** The storefront's listener: records every message with both checks the SDK's README asks for. */
const LISTENER = `
  window.received = [];
  window.addEventListener("message", (event) => {
    window.received.push({
      origin: event.origin,
      data: event.data,
      accepted: window.sdk.isPaymentEvent(event, window.checkoutOrigin),
      acceptedByDefault: window.sdk.isPaymentEvent(event),
      fromFrame: !!window.paymentFrame && event.source === window.paymentFrame.contentWindow,
    });
  });`;

const page = (body: string) => `<!doctype html><html><head><meta charset="utf-8"><title>t</title></head><body>${body}</body></html>`;
const storefrontPage = (sdk: "esm" | "classic", checkoutOrigin: string) =>
  page(
    `<div id="checkout" style="height: 720px; width: 480px"></div>` +
      `<script>window.checkoutOrigin = ${JSON.stringify(checkoutOrigin)};${LISTENER}</script>` +
      (sdk === "esm"
        ? `<script type="module">import * as sdk from "/sdk/index.js"; window.sdk = sdk;</script>`
        : `<script src="/sdk/eventhub-sdk.js"></script><script>window.sdk = window.EventhubSDK;</script>`),
  );
/** The fake hosted checkout: what the real page will post, plus two messages the SDK must refuse. */
const CHECKOUT_PAGE = page(`<p>checkout</p><script>
  const parentOrigin = new URLSearchParams(location.search).get("parentOrigin");
  for (const message of [
    { type: "loaded" },
    { type: "payment-error", payload: { error: { code: "insufficient_funds", message: "Not enough ETH to pay" } } },
    { type: "payment-succeeded" },
    "loaded",
  ]) parent.postMessage(message, parentOrigin);
</script>`);

function serve(name: string, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<number> {
  const server = createServer((req, res) => {
    log.push({ origin: name, line: `${req.method} ${req.url} HTTP/${req.httpVersion}`, headers: req.headers });
    handle(req, res);
  });
  servers.push(server);
  return listenOnLoopback(server);
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers }).end(body);
}

beforeAll(async () => {
  // The tests use the SDK exactly as its build script emits it, built into a directory of their own.
  buildDir = mkdtempSync(join(tmpdir(), "eventhub-sdk-"));
  execFileSync(process.execPath, [fileURLToPath(new URL("../../packages/sdk/scripts/build.mjs", import.meta.url)), "--out", buildDir], { stdio: "pipe" });

  const storefrontPort = await serve("storefront", (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    // The storefront's own policy is the laxest (unsafe-url: full URL to every origin), so only the
    // frame's referrerpolicy="origin" can keep its path and query from the checkout.
    if (url.pathname === "/shop/cart") return send(res, 200, "text/html", storefrontPage("esm", checkout), { "referrer-policy": "unsafe-url" });
    if (url.pathname === "/shop/classic") return send(res, 200, "text/html", storefrontPage("classic", checkout), { "referrer-policy": "unsafe-url" });
    const file = { "/sdk/index.js": "index.js", "/sdk/eventhub-sdk.js": "eventhub-sdk.js" }[url.pathname];
    if (file) return send(res, 200, "text/javascript", readFileSync(join(buildDir, file)));
    send(res, 404, "text/plain", "not found");
  });
  const checkoutPort = await serve("checkout", (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    if (url.pathname === `/checkout/${CHECKOUT_ID}` || url.pathname === "/impostor") return send(res, 200, "text/html", CHECKOUT_PAGE);
    send(res, 404, "text/plain", "not found");
  });
  storefront = `http://127.0.0.1:${storefrontPort}`;
  checkout = `http://localhost:${checkoutPort}`;
  impostor = `http://127.0.0.1:${checkoutPort}`;

  // A failed test, never a skip: `npm test` installs chromium as root; elsewhere it is installed by hand.
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}. Install it with: ${CHROMIUM_INSTALL}`);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

/** Opens a storefront page with every request off our three origins refused. */
async function open(path: string): Promise<{ page: Page; refused: string[]; errors: string[] }> {
  const p = await browser.newPage();
  const refused: string[] = [];
  const errors: string[] = [];
  p.on("pageerror", (error) => errors.push(error.message));
  await p.route("**/*", (route) => {
    const url = route.request().url();
    if ([storefront, checkout, impostor].includes(new URL(url).origin)) return route.continue();
    refused.push(url);
    return route.abort();
  });
  await p.goto(storefront + path, { waitUntil: "load" });
  await p.waitForFunction(() => typeof (window as Storefront).sdk?.createPaymentFrame === "function");
  return { page: p, refused, errors };
}

/** Mounts the checkout frame in the page's 720 px container; returns the frame's src attribute. */
function mount(p: Page, params: PaymentFrameParams): Promise<string> {
  return p.evaluate((params) => {
    const w = window as Storefront;
    const { frame } = w.sdk.createPaymentFrame({ el: document.getElementById("checkout")!, params });
    w.paymentFrame = frame;
    return frame.getAttribute("src")!;
  }, params);
}

const receivedFrom = (p: Page, origin: string, count: number) =>
  p
    .waitForFunction(([origin, count]) => (window as Storefront).received.filter((r) => r.origin === origin).length >= count, [origin, count] as const, { timeout: 20_000 })
    .then(() => p.evaluate((origin) => (window as Storefront).received.filter((r) => r.origin === origin), origin));

const params = (): PaymentFrameParams => ({ target: "checkout", checkoutId: CHECKOUT_ID, clientSecret: SECRET, checkoutOrigin: checkout });

describe("@eventhub/sdk in Chromium", { timeout: 60_000 }, () => {
  it("embeds the checkout: secret in the fragment only, origin-only referrer, messages checked by origin and kind", async () => {
    const { page: p, refused, errors } = await open("/shop/cart?order=42&coupon=private");
    const before = log.length;
    const src = await mount(p, params());
    const [beforeHash, fragment] = src.split("#");
    expect(beforeHash).toBe(`${checkout}/checkout/${CHECKOUT_ID}?embed=1&parentOrigin=${encodeURIComponent(storefront)}`);
    expect(fragment).toBe(`clientSecret=${encodeURIComponent(SECRET)}`);

    const messages = await receivedFrom(p, checkout, 4);
    expect(messages).toEqual([
      { origin: checkout, data: { type: "loaded" }, accepted: true, acceptedByDefault: false, fromFrame: true },
      {
        origin: checkout,
        data: { type: "payment-error", payload: { error: { code: "insufficient_funds", message: "Not enough ETH to pay" } } },
        accepted: true,
        acceptedByDefault: false,
        fromFrame: true,
      },
      { origin: checkout, data: { type: "payment-succeeded" }, accepted: false, acceptedByDefault: false, fromFrame: true },
      { origin: checkout, data: "loaded", accepted: false, acceptedByDefault: false, fromFrame: true },
    ]);

    // The hosted page does get the secret, from its own fragment.
    const frame = p.frames().find((f) => f.url().startsWith(`${checkout}/checkout/`));
    expect(await frame!.evaluate(() => decodeURIComponent(location.hash))).toBe(`#clientSecret=${SECRET}`);
    // Sized to its 720 px container.
    const box = await p.evaluate(() => (window as Storefront).paymentFrame!.getBoundingClientRect().toJSON());
    expect([box.width, box.height]).toEqual([480, 720]);

    // What the checkout server saw: the request line without the secret, the storefront's origin only as referrer.
    const seen = log.slice(before).filter((l) => l.origin === "checkout");
    expect(seen.map((l) => l.line)).toEqual([`GET /checkout/${CHECKOUT_ID}?embed=1&parentOrigin=${encodeURIComponent(storefront)} HTTP/1.1`]);
    expect(seen[0]!.headers.referer).toBe(`${storefront}/`);
    const everything = JSON.stringify(log);
    for (const form of SECRET_FORMS) expect(everything).not.toContain(form);
    expect(JSON.stringify(seen)).not.toContain("coupon=private"); // the storefront's path and query stay home

    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await p.close();
  });

  it("refuses the same messages from another origin and from a frame that is not the checkout's", async () => {
    const { page: p, errors } = await open("/shop/cart");
    await mount(p, params());
    await receivedFrom(p, checkout, 4);
    await p.evaluate((src) => {
      const other = document.createElement("iframe");
      other.src = src;
      document.body.appendChild(other);
    }, `${impostor}/impostor?parentOrigin=${encodeURIComponent(storefront)}`);
    const messages = await receivedFrom(p, impostor, 4);
    expect(messages.map((m) => [m.data, m.accepted, m.fromFrame])).toEqual([
      [{ type: "loaded" }, false, false],
      [{ type: "payment-error", payload: { error: { code: "insufficient_funds", message: "Not enough ETH to pay" } } }, false, false],
      [{ type: "payment-succeeded" }, false, false],
      ["loaded", false, false],
    ]);
    // With the impostor's origin passed, the origin check alone would accept it: hence event.source too.
    const acceptedWithItsOrigin = await p.evaluate(
      ([origin, data]) => (window as Storefront).sdk.isPaymentEvent(new MessageEvent("message", { origin, data }), origin),
      [impostor, { type: "loaded" }] as const,
    );
    expect(acceptedWithItsOrigin).toBe(true);
    expect(errors).toEqual([]);
    await p.close();
  });

  it("throws a clear error on bad parameters and mounts nothing", async () => {
    const { page: p } = await open("/shop/cart");
    const outcomes = await p.evaluate((good) => {
      const attempt = (params: unknown) => {
        try {
          (window as Storefront).sdk.createPaymentFrame({ el: document.getElementById("checkout")!, params: params as PaymentFrameParams });
          return "mounted";
        } catch (error) {
          return (error as Error).message;
        }
      };
      return {
        target: attempt({ ...good, target: "popup" }),
        checkoutId: attempt({ ...good, checkoutId: "not-an-id" }),
        clientSecret: attempt({ ...good, clientSecret: "" }),
        origin: attempt({ ...good, checkoutOrigin: "http://checkout.example" }),
        el: (() => {
          try {
            (window as Storefront).sdk.createPaymentFrame({ el: null as unknown as HTMLElement, params: good });
            return "mounted";
          } catch (error) {
            return (error as Error).message;
          }
        })(),
        frames: document.querySelectorAll("iframe").length,
      };
    }, params());
    expect(outcomes).toEqual({
      target: expect.stringMatching(/^@eventhub\/sdk: params\.target must be PaymentTarget\.Checkout/),
      checkoutId: expect.stringMatching(/^@eventhub\/sdk: params\.checkoutId must be .*24 hexadecimal/),
      clientSecret: expect.stringMatching(/^@eventhub\/sdk: params\.clientSecret must be/),
      origin: expect.stringMatching(/^@eventhub\/sdk: params\.checkoutOrigin must use https/),
      el: expect.stringMatching(/^@eventhub\/sdk: el must be the container element/),
      frames: 0,
    });
    await p.close();
  });

  it("works from a plain <script> tag as window.EventhubSDK", async () => {
    const { page: p, refused, errors } = await open("/shop/classic");
    const api = await p.evaluate(() => {
      const { EventhubSDK } = window as Storefront;
      return { keys: Object.keys(EventhubSDK).sort(), origin: EventhubSDK.CHECKOUT_ORIGIN, events: EventhubSDK.PaymentEvent, target: EventhubSDK.PaymentTarget };
    });
    expect(api).toEqual({
      keys: ["CHECKOUT_ORIGIN", "PaymentEvent", "PaymentTarget", "createPaymentFrame", "isPaymentEvent"],
      origin: "https://checkout.eventhub.example",
      events: { Loaded: "loaded", PaymentSuccess: "payment-success", PaymentError: "payment-error", PaymentCanceled: "payment-canceled" },
      target: { Checkout: "checkout" },
    });
    await mount(p, params());
    const [loaded] = await receivedFrom(p, checkout, 4);
    expect(loaded).toEqual({ origin: checkout, data: { type: "loaded" }, accepted: true, acceptedByDefault: false, fromFrame: true });
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await p.close();
  });
});
