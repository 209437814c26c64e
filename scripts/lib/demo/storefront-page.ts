// The storefront's one HTML page (served by storefront.ts).
import type { DemoChain } from "../demo-checkout.ts";
import { DEMO_ITEM } from "./terms.ts";

/** The storefront's one page: a cart, the embedded checkout (720 px) and what the checkout tells the page. */
export function storefrontPage({ checkoutOrigin, chain, price }: { checkoutOrigin: string; chain: DemoChain; price: string }): string {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo store: Eventhub checkout</title>
<style>
  body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: #1d2433; background: #f4f5f8; }
  header { padding: 16px 24px; background: #1d2433; color: #fff; }
  header h1 { margin: 0; font-size: 20px; }
  main { display: flex; flex-wrap: wrap; gap: 24px; padding: 24px; }
  /* min(): on a phone both columns shrink to the viewport instead of overflowing it. */
  #checkout { flex: 1 1 min(420px, 100%); max-width: 560px; height: 720px; background: #fff; border-radius: 8px; overflow: hidden; }
  aside { flex: 1 1 min(320px, 100%); min-width: 0; }
  code { font-size: 13px; word-break: break-all; }
  #events li { margin-bottom: 6px; overflow-wrap: anywhere; }
  .paid { color: #0a7a3e; font-weight: 600; }
</style></head>
<body>
<header><h1>Demo store</h1>One <b>${escape(DEMO_ITEM.name)}</b> for ${escape(price)} on Anvil (chain ${chain.chainId})</header>
<main>
  <div id="checkout"></div>
  <aside>
    <h2>Pay with an anvil dev account</h2>
    <p>Add the network <code>${escape(chain.rpcUrl)}</code> (chain id ${chain.chainId}) to your wallet and import
      dev account #1, <code>${escape(chain.customer.address)}</code>, with anvil's published private key
      <code>${escape(chain.customer.privateKey)}</code> (public knowledge: never send real funds to it).</p>
    <h2>What the checkout tells this page</h2>
    <ol id="events"></ol>
  </aside>
</main>
<script src="${escape(checkoutOrigin)}/sdk/v1/eventhub-sdk.js"></script>
<script>
(async () => {
  const CHECKOUT_ORIGIN = ${JSON.stringify(checkoutOrigin)};
  const events = document.getElementById("events");
  const show = (text, className) => {
    const item = document.createElement("li");
    item.textContent = new Date().toLocaleTimeString() + "  " + text;
    if (className) item.className = className;
    events.append(item);
  };
  // The backend creates a session for a new order; the browser gets its id and client secret only.
  const answer = await fetch("/api/checkout", { method: "POST" });
  if (!answer.ok) return show("creating the checkout failed: " + answer.status + " " + await answer.text());
  const { checkoutId, clientSecret, externalOrderId } = await answer.json();
  show("order " + externalOrderId + ": checkout " + checkoutId);
  const { frame } = EventhubSDK.createPaymentFrame({
    el: document.getElementById("checkout"),
    params: { target: EventhubSDK.PaymentTarget.Checkout, checkoutId, clientSecret, checkoutOrigin: CHECKOUT_ORIGIN },
  });
  let waiting = false;
  window.addEventListener("message", async (event) => {
    // Both checks: from the checkout's origin, and from our frame.
    if (!EventhubSDK.isPaymentEvent(event, CHECKOUT_ORIGIN) || event.source !== frame.contentWindow) return;
    show(event.data.type + (event.data.payload ? " " + JSON.stringify(event.data.payload) : ""));
    if (event.data.type !== EventhubSDK.PaymentEvent.PaymentSuccess || waiting) return;
    // A browser message is for the UI only: the order is paid when the signed webhook arrived.
    waiting = true;
    show("waiting for the signed webhook…");
    for (let i = 0; i < 120; i++) {
      const order = await (await fetch("/api/orders/" + checkoutId)).json();
      if (order.paid) return show("webhook verified: order " + order.externalOrderId + " is paid", "paid");
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    show("no webhook yet: see the npm start console");
  });
})();
</script>
</body></html>
`;
}
