// The hosted checkout served as Supabase serves the api function (edge-functions.ts), against a
// local chain: a checkout session created over HTTP answers a checkoutUrl under /functions/v1/api,
// and the page there, its own files and the session read it makes (relative to itself) answer 200;
// then a storefront embeds it with the SDK script the function serves, and a wallet in Chromium pays
// (the fixtures of tests/checkout-page/checkout-page.browser.test.ts, on the hosted layout).
import { afterAll, beforeAll, expect, it } from "vitest";
import type { CheckoutWorld } from "../checkout/checkout-fixtures.ts";
import { startHostedBrowserCheckout } from "../checkout-page/browser-fixtures.ts";
import type { HostedFunctions } from "./edge-functions.ts";

let f: Awaited<ReturnType<typeof startHostedBrowserCheckout>>;
let w: CheckoutWorld;
let hosted: HostedFunctions;
beforeAll(async () => {
  f = await startHostedBrowserCheckout();
  ({ w, hosted } = f);
}, 300_000);
afterAll(() => f?.close());

it("checkoutUrl opens the hosted checkout page, whose files and session read answer under /functions/v1/api", async () => {
  const api = `${hosted.root}/api`;
  // Created over HTTP on the hosted function (the fixture's owner, key and registered collection).
  const { checkoutId, clientSecret, checkoutUrl } = await f.newSession();
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

it("a storefront embeds it with the SDK script the function serves; a wallet pays in the native currency on anvil, and the session reads COMPLETED", { timeout: 120_000 }, async () => {
  const session = await f.staticPriceSession(10n ** 16n);
  expect(session.checkoutUrl.startsWith(`${hosted.root}/api/checkout/${session.checkoutId}#`)).toBe(true);
  const { page, frame, outcome } = await f.payFromStorefront(session, w.anvil.accounts[2]!);
  expect(frame.url().startsWith(`${hosted.root}/api/checkout/${session.checkoutId}?embed=1&`), frame.url()).toBe(true);
  await f.expectCompleted(session, outcome);
  await page.close();
});
