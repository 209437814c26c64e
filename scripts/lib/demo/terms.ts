// The checkout demo's fixed terms, shared by its parts (scripts/lib/demo-checkout.ts composes them).
import { createServer } from "node:net";
import { listenOnLoopback } from "../listen.ts";

export const DEMO_ANVIL_PORT = 8545;
export const DEMO_STOREFRONT_PORT = 54324;
/** The demo collection's static price: 0.01 ETH. */
export const DEMO_PRICE = 10_000_000_000_000_000n;
export const DEMO_COLLECTION = { name: "Eventhub Demo Tickets", symbol: "DEMO" } as const;
export const DEMO_ITEM = {
  name: "Demo ticket",
  description: "A ticket NFT minted on your local anvil chain",
  // The page shows any https image and hides one that does not load (offline: a neutral tile).
  image: "https://placehold.co/480x480/png?text=Demo+ticket",
  externalProductRef: "demo-ticket",
} as const;
export const WEBHOOK_PATH = "/webhooks/checkout";

/** The demo cannot run (port taken, no anvil binary, address linked to someone else...); `npm start` goes on without it. */
export class DemoUnavailable extends Error {}

/** Whether a TCP port is free on loopback (bound, then released). */
export function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return listenOnLoopback(server, port).then(() => new Promise((resolve) => server.close(() => resolve(true))), () => false);
}
