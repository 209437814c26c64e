// The demo's storefront on its own loopback origin: its backend creates a checkout session per
// order with the API key (only the id and client secret reach the browser), serves the page that
// embeds the hosted checkout with the SDK, and verifies the checkout webhook before an order is paid.
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { Webhook } from "standardwebhooks";
import { formatEther } from "viem";
import type { DemoChain } from "../demo-checkout.ts";
import { serveOnLoopback } from "../listen.ts";
import { api, registerCollection } from "./api-client.ts";
import { storefrontPage } from "./storefront-page.ts";
import { DEMO_ITEM, DEMO_PRICE, DEMO_STOREFRONT_PORT, DemoUnavailable, portIsFree, WEBHOOK_PATH } from "./terms.ts";

export interface DemoSession {
  checkoutId: string;
  clientSecret: string;
  checkoutUrl: string;
  externalOrderId: string;
}

export interface DemoStore {
  /** The storefront's origin, the sessions' allowedOrigin, e.g. http://127.0.0.1:54324 */
  url: string;
  webhookUrl: string;
  collectionId: string;
  /** Whether this start registered the collection (false: it was registered by an earlier start). */
  registeredNow: boolean;
  /** The session created at start, to open directly. */
  session: DemoSession;
  /** Creates a session for a new order, as the storefront's backend does on every page load. */
  newSession(): Promise<DemoSession>;
  /** Event ids whose webhook verified. */
  verifiedEvents: ReadonlySet<string>;
  stop(): Promise<void>;
}

export interface OpenStoreOptions {
  /** The gateway's root, e.g. http://127.0.0.1:54321 */
  apiRoot: string;
  /** An API key of the user `linkOwner` linked, with checkout:create. */
  apiKey: string;
  port?: number;
  /** Console lines of the storefront; console.log by default. */
  log?: (line: string) => void;
}

async function readBody(request: IncomingMessage, limit = 256 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

const json = (response: ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));

/** Registers the collection, serves the storefront and creates the first session. */
export async function openStore(chain: DemoChain, options: OpenStoreOptions): Promise<DemoStore> {
  const apiRoot = options.apiRoot.replace(/\/+$/, "");
  const port = options.port ?? DEMO_STOREFRONT_PORT;
  const log = options.log ?? ((line: string) => console.log(line));
  const origin = `http://127.0.0.1:${port}`;
  const webhookUrl = `${origin}${WEBHOOK_PATH}`;
  if (!(await portIsFree(port))) throw new DemoUnavailable(`storefront port ${port} is in use (set DEMO_STOREFRONT_PORT to another port)`);

  const { id: collectionId, registeredNow } = await registerCollection(chain, apiRoot, options.apiKey);

  // The backend's order book: what a real store keeps in its database.
  const orders = new Map<string, { externalOrderId: string; webhookSecret: string; paid: boolean }>();
  const secrets = new Set<string>(); // one per (account, webhook URL), so in practice just one
  const verifiedEvents = new Set<string>();

  async function newSession(): Promise<DemoSession> {
    const externalOrderId = `demo-${Date.now()}-${randomBytes(4).toString("hex")}`;
    const created = await api(apiRoot, options.apiKey, "POST", "/api/v3/checkout/sessions", {
      collectionId,
      externalOrderId,
      items: [{ ...DEMO_ITEM, mintPrice: String(DEMO_PRICE), quantity: 1 }],
      paymentMethods: ["crypto_wallet"],
      allowedOrigin: origin,
      webhookUrl,
      expiresInSeconds: 3600,
    });
    if (created.status !== 201) throw new Error(`creating a demo checkout session: ${created.status} ${created.text}`);
    const { checkoutId, clientSecret, checkoutUrl, webhookSecret } = created.body as Record<string, string>;
    orders.set(checkoutId!, { externalOrderId, webhookSecret: webhookSecret!, paid: false });
    secrets.add(webhookSecret!);
    return { checkoutId: checkoutId!, clientSecret: clientSecret!, checkoutUrl: checkoutUrl!, externalOrderId };
  }

  // Created before the storefront listens: its checkoutUrl tells where the checkout (and the SDK) is served.
  const session = await newSession();
  const checkoutOrigin = new URL(session.checkoutUrl).origin;
  const page = storefrontPage({ checkoutOrigin, chain, price: `${formatEther(DEMO_PRICE)} ETH` });

  async function receiveWebhook(request: IncomingMessage, response: ServerResponse) {
    const body = await readBody(request);
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    // Verified before anything in it is believed; the library also refuses old timestamps (replays).
    const verified = [...secrets].some((secret) => {
      try {
        new Webhook(secret).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    });
    if (!verified) {
      log(`[demo store] webhook refused: the signature does not verify`);
      response.writeHead(401).end();
      return;
    }
    const eventId = headers["webhook-id"]!;
    const again = verifiedEvents.has(eventId);
    verifiedEvents.add(eventId);
    const order = orders.get(eventId.replace(/^checkout-completed-/, ""));
    if (order) order.paid = true;
    log(`[demo store] webhook ${eventId} verified${again ? " (again)" : ""}${order ? `: order ${order.externalOrderId} is paid` : ""}`);
    response.writeHead(204).end();
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const path = new URL(request.url ?? "/", origin).pathname;
    if (request.method === "GET" && path === "/") {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(page);
    } else if (request.method === "POST" && path === "/api/checkout") {
      // The storefront's backend: a new order per page load, a session for it with the API key,
      // and only { checkoutId, clientSecret } to the browser (the webhook secret stays here).
      const created = await newSession();
      json(response, 201, { checkoutId: created.checkoutId, clientSecret: created.clientSecret, externalOrderId: created.externalOrderId });
    } else if (request.method === "GET" && path.startsWith("/api/orders/")) {
      const order = orders.get(path.slice("/api/orders/".length));
      if (!order) json(response, 404, { error: "no such order" });
      else json(response, 200, { externalOrderId: order.externalOrderId, paid: order.paid });
    } else if (request.method === "POST" && path === WEBHOOK_PATH) {
      await receiveWebhook(request, response);
    } else {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  }

  const server = await serveOnLoopback("demo store", handle, { port, log }).catch((error: Error) => {
    throw new DemoUnavailable(`storefront port ${port}: ${error.message}`);
  });

  let stopped = false;
  return {
    url: origin,
    webhookUrl,
    collectionId,
    registeredNow,
    session,
    newSession,
    verifiedEvents,
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.close();
    },
  };
}
