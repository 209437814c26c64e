// @eventhub/sdk without a browser: parameter checks, the frame's URL and attributes (on a stand-in
// DOM), and isPaymentEvent on Node's own MessageEvent. The real-browser half is
// payment-frame.browser.test.ts. Imports the TypeScript source: no build needed.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  CHECKOUT_ORIGIN,
  createPaymentFrame,
  isPaymentEvent,
  PaymentEvent,
  PaymentTarget,
  type PaymentFrameParams,
} from "../../packages/sdk/src/index.ts";

const checkoutId = "65a1f0c2b3d4e5f6a7b8c9d0";
const clientSecret = "cs_live/secret+with=chars&more";

/** A stand-in container whose ownerDocument creates recordable iframes. */
function fakeContainer() {
  const frames: Array<{ attributes: Record<string, string>; style: Record<string, string>; src: string }> = [];
  const el = {
    children: [] as unknown[],
    appendChild(child: unknown) {
      this.children.push(child);
      return child;
    },
    ownerDocument: {
      createElement(tag: string) {
        expect(tag).toBe("iframe");
        const frame = {
          attributes: {} as Record<string, string>,
          style: {} as Record<string, string>,
          src: "",
          setAttribute(name: string, value: string) {
            this.attributes[name] = value;
          },
        };
        frames.push(frame);
        return frame;
      },
    },
  };
  return { el: el as unknown as HTMLElement, frames, children: el.children };
}

afterEach(() => vi.unstubAllGlobals());

describe("createPaymentFrame", () => {
  it("puts the secret only in the fragment and passes the page origin", () => {
    vi.stubGlobal("window", { location: { origin: "https://shop.example" } });
    const { el, frames, children } = fakeContainer();
    const { frame } = createPaymentFrame({ el, params: { target: PaymentTarget.Checkout, checkoutId, clientSecret } });
    expect(children).toEqual([frame]);
    expect(frames).toHaveLength(1);
    const [rec] = frames;
    expect(rec!.src).toBe(
      `${CHECKOUT_ORIGIN}/checkout/${checkoutId}?embed=1&parentOrigin=${encodeURIComponent("https://shop.example")}` +
        `#clientSecret=${encodeURIComponent(clientSecret)}`,
    );
    const url = new URL(rec!.src);
    expect(url.origin + url.pathname + url.search).not.toContain("secret");
    expect(decodeURIComponent(url.hash)).toBe(`#clientSecret=${clientSecret}`);
    expect(url.searchParams.get("parentOrigin")).toBe("https://shop.example");
    expect(rec!.attributes).toEqual({ referrerpolicy: "origin", allow: "payment; clipboard-write", title: "Checkout" });
    expect(rec!.style).toEqual({ width: "100%", height: "100%", border: "0", display: "block" });
  });

  it("takes another checkout origin (the local gateway)", () => {
    vi.stubGlobal("window", { location: { origin: "http://127.0.0.1:3000" } });
    const { el, frames } = fakeContainer();
    createPaymentFrame({ el, params: { target: "checkout", checkoutId, clientSecret: "s", checkoutOrigin: "http://127.0.0.1:54321" } });
    expect(frames[0]!.src.startsWith(`http://127.0.0.1:54321/checkout/${checkoutId}?embed=1&`)).toBe(true);
  });

  it("takes the path of the service's pages on that origin (a Supabase project's own domain)", () => {
    vi.stubGlobal("window", { location: { origin: "https://shop.example" } });
    const { el, frames } = fakeContainer();
    createPaymentFrame({ el, params: { target: "checkout", checkoutId, clientSecret: "s", checkoutOrigin: "https://ref.supabase.co", checkoutPath: "/functions/v1/api" } });
    expect(frames[0]!.src.startsWith(`https://ref.supabase.co/functions/v1/api/checkout/${checkoutId}?embed=1&`)).toBe(true);
  });

  const good: PaymentFrameParams = { target: PaymentTarget.Checkout, checkoutId, clientSecret };
  const bad: Array<[string, unknown, RegExp]> = [
    ["no params", undefined, /params is required/],
    ["another target", { ...good, target: "wallet" }, /params\.target must be PaymentTarget\.Checkout/],
    ["no target", { checkoutId, clientSecret }, /params\.target/],
    ["a short checkoutId", { ...good, checkoutId: "65a1f0c2" }, /params\.checkoutId must be .*24 hexadecimal/],
    ["a non-hex checkoutId", { ...good, checkoutId: "65a1f0c2b3d4e5f6a7b8c9zz" }, /params\.checkoutId/],
    ["an upper-case checkoutId", { ...good, checkoutId: checkoutId.toUpperCase() }, /params\.checkoutId/],
    ["a path as checkoutId", { ...good, checkoutId: "../../admin/65a1f0c2b3d4" }, /params\.checkoutId/],
    ["an empty secret", { ...good, clientSecret: "" }, /params\.clientSecret must be/],
    ["a blank secret", { ...good, clientSecret: "  " }, /params\.clientSecret must be/],
    ["a numeric secret", { ...good, clientSecret: 42 }, /params\.clientSecret must be/],
    ["an http origin", { ...good, checkoutOrigin: "http://checkout.example" }, /must use https/],
    ["an origin with a path", { ...good, checkoutOrigin: "https://checkout.example/pay" }, /bare origin/],
    ["an origin with a trailing slash", { ...good, checkoutOrigin: "https://checkout.example/" }, /bare origin/],
    ["not a URL", { ...good, checkoutOrigin: "checkout.example" }, /not a valid origin/],
    ["a javascript: URL", { ...good, checkoutOrigin: "javascript:alert(1)" }, /bare origin|https/],
    ["a path with a trailing slash", { ...good, checkoutPath: "/functions/v1/api/" }, /params\.checkoutPath must be a path/],
    ["a path without its leading slash", { ...good, checkoutPath: "functions/v1/api" }, /params\.checkoutPath/],
    ["a path going up", { ...good, checkoutPath: "/functions/../admin" }, /params\.checkoutPath/],
    ["a path with a query", { ...good, checkoutPath: "/api?x=1" }, /params\.checkoutPath/],
    ["another host as path", { ...good, checkoutPath: "//evil.example" }, /params\.checkoutPath/],
  ];
  it.each(bad)("refuses %s with a clear error", (_what, params, message) => {
    vi.stubGlobal("window", { location: { origin: "https://shop.example" } });
    const { el, frames } = fakeContainer();
    expect(() => createPaymentFrame({ el, params: params as PaymentFrameParams })).toThrow(message);
    expect(frames).toHaveLength(0);
  });

  it("refuses a missing container and a page without an origin", () => {
    vi.stubGlobal("window", { location: { origin: "https://shop.example" } });
    expect(() => createPaymentFrame({ el: null as unknown as HTMLElement, params: good })).toThrow(/el must be the container/);
    vi.stubGlobal("window", { location: { origin: "null" } });
    expect(() => createPaymentFrame({ el: fakeContainer().el, params: good })).toThrow(/needs an http\(s\) origin/);
  });
});

describe("isPaymentEvent", () => {
  const from = (origin: string, data: unknown) => new MessageEvent("message", { origin, data });

  it("accepts every known kind from the checkout origin", () => {
    for (const type of Object.values(PaymentEvent)) {
      const data = type === PaymentEvent.PaymentError ? { type, payload: { error: { code: "x", message: "Declined" } } } : { type };
      expect(isPaymentEvent(from(CHECKOUT_ORIGIN, data)), type).toBe(true);
    }
    expect(isPaymentEvent(from(CHECKOUT_ORIGIN, { type: "payment-error", payload: { error: "Insufficient funds" } }))).toBe(true);
    expect(isPaymentEvent(from("http://127.0.0.1:54321", { type: "loaded" }), "http://127.0.0.1:54321")).toBe(true);
  });

  it("refuses other origins, unknown kinds, malformed data and non-events", () => {
    expect(isPaymentEvent(from("https://evil.example", { type: "loaded" }))).toBe(false);
    expect(isPaymentEvent(from(CHECKOUT_ORIGIN + ".evil.example", { type: "loaded" }))).toBe(false);
    expect(isPaymentEvent(from("http://127.0.0.1:54321", { type: "loaded" }))).toBe(false); // default origin is production
    expect(isPaymentEvent(from(CHECKOUT_ORIGIN, { type: "payment-succeeded" }))).toBe(false);
    expect(isPaymentEvent(from(CHECKOUT_ORIGIN, "loaded"))).toBe(false);
    expect(isPaymentEvent(from(CHECKOUT_ORIGIN, null))).toBe(false);
    expect(isPaymentEvent(from(CHECKOUT_ORIGIN, { type: "loaded", payload: "x" }))).toBe(false);
    expect(isPaymentEvent(from(CHECKOUT_ORIGIN, { type: "payment-error" }))).toBe(false);
    expect(isPaymentEvent(from(CHECKOUT_ORIGIN, { type: "payment-error", payload: { error: 7 } }))).toBe(false);
    expect(isPaymentEvent({ origin: CHECKOUT_ORIGIN, data: { type: "loaded" } })).toBe(false);
    expect(isPaymentEvent(new Event("message"))).toBe(false);
    expect(isPaymentEvent(undefined)).toBe(false);
  });

  it("narrows event.data", () => {
    const event: unknown = from(CHECKOUT_ORIGIN, { type: "payment-error", payload: { error: "Declined" } });
    if (isPaymentEvent(event) && event.data.type === PaymentEvent.PaymentError) {
      const error: string | { message: string } = event.data.payload.error;
      expect(error).toBe("Declined");
    } else {
      throw new Error("not narrowed");
    }
  });
});
