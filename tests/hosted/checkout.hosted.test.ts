// The hosted checkout served as Supabase serves the api function (edge-functions.ts), against a
// local chain: a checkout session created over HTTP answers a checkoutUrl under /functions/v1/api,
// and the page there, its own files and the session read it makes (relative to itself) answer 200.
import { afterAll, beforeAll, expect, it } from "vitest";
import { TEST_JWT_SECRET } from "../setup/test-context.ts";
import { type CheckoutWorld, sessionRequest, startCheckoutWorld } from "../checkout/checkout-fixtures.ts";
import { type HostedFunctions, serveHostedFunctions } from "./edge-functions.ts";

let w: CheckoutWorld;
let hosted: HostedFunctions;
beforeAll(async () => {
  w = await startCheckoutWorld();
  hosted = await serveHostedFunctions(["api"], {
    GATEWAY_DATABASE_URL: w.t.config.GATEWAY_DATABASE_URL, APP_ENV: "test", JWT_SECRET: TEST_JWT_SECRET,
    SECRETS_ENCRYPTION_KEY: w.t.config.SECRETS_ENCRYPTION_KEY!,
    EVM_CHAINS: JSON.stringify([{ chainId: w.anvil.chainId, rpcUrl: w.anvil.rpcUrl, confirmations: 1 }]),
  });
}, 300_000);
afterAll(async () => {
  await hosted?.stop();
  await w?.close();
});

it("checkoutUrl opens the hosted checkout page, whose files and session read answer under /functions/v1/api", async () => {
  const owner = await w.ownerWithWallet(w.anvil.accounts[1]!);
  const collection = await w.registeredCollection(owner, w.anvil.accounts[1]!);
  const api = `${hosted.root}/api`;
  const created = await fetch(`${api}/v3/checkout/sessions`, {
    method: "POST", headers: { "x-api-key": owner.key, "content-type": "application/json" }, body: JSON.stringify(sessionRequest(collection.id)),
  });
  expect(created.status, await created.clone().text()).toBe(201);
  const { checkoutId, clientSecret, checkoutUrl } = await created.json();
  expect(checkoutUrl).toBe(`${api}/checkout/${checkoutId}#clientSecret=${clientSecret}`);
  const page = new URL(checkoutUrl);
  page.hash = "";
  const answer = await fetch(page);
  expect(answer.status).toBe(200);
  for (const [, src] of (await answer.text()).matchAll(/(?:src|href)="([^"]+)"/g)) {
    expect((await fetch(new URL(src!, page))).status, src).toBe(200);
  }
  // page.js reads the session at ../api/v3/checkout/sessions/<id>, relative to the page.
  const session = await fetch(new URL(`../api/v3/checkout/sessions/${checkoutId}`, page), { headers: { "x-checkout-client-secret": clientSecret } });
  expect(session.status).toBe(200);
  expect(await session.json()).toMatchObject({ checkoutId });
});
