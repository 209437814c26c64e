// With PUBLIC_API_ROOT Supabase's functions root, checkoutUrl leads to the hosted checkout page under
// /functions/v1/api, and the page's own requests (its assets, the session it reads) resolve there too.
import { afterAll, beforeAll, expect, it } from "vitest";
import { API, edgeFetch, FUNCTIONS_ROOT } from "../http/edge-runtime.ts";
import { type CheckoutWorld, createSession, sessionRequest, startCheckoutWorld } from "./checkout-fixtures.ts";

let w: CheckoutWorld;
beforeAll(async () => {
  w = await startCheckoutWorld({ PUBLIC_API_ROOT: FUNCTIONS_ROOT });
});
afterAll(async () => {
  await w?.close();
});

it("checkoutUrl opens the checkout page under /functions/v1/api, whose assets and session read answer there", async () => {
  const owner = await w.ownerWithWallet(w.anvil.accounts[1]!);
  const collection = await w.registeredCollection(owner, w.anvil.accounts[1]!);
  const created = await createSession(w.t, owner.key, sessionRequest(collection.id));
  expect(created.status).toBe(201);
  const { checkoutId, clientSecret, checkoutUrl } = await created.json();
  expect(checkoutUrl).toBe(`${API}/checkout/${checkoutId}#clientSecret=${clientSecret}`);

  const edge = edgeFetch((request: Request) => Promise.resolve(w.t.app.fetch(request)));
  const page = new URL(checkoutUrl);
  page.hash = "";
  const answer = await edge(page);
  expect(answer.status).toBe(200);
  for (const [, src] of (await answer.text()).matchAll(/(?:src|href)="([^"]+)"/g)) {
    expect((await edge(new URL(src!, page))).status, src).toBe(200);
  }
  // The page reads its session at ../api/v3/checkout/sessions/<id> relative to itself (page.js).
  const session = await edge(new URL(`../api/v3/checkout/sessions/${checkoutId}`, page), { headers: { "x-checkout-client-secret": clientSecret } });
  expect(session.status).toBe(200);
});
