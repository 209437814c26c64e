/**
 * @eventhub/sdk: embeds the hosted NFT checkout in a storefront page and recognises the messages
 * it posts to the page.
 *
 * Browser events are for UI updates only: the signed `checkout.completed` webhook on the store
 * backend is the proof of payment.
 *
 * This file has no imports on purpose: scripts/build.mjs also compiles it into a classic script
 * (`dist/eventhub-sdk.js`, exposing `window.EventhubSDK`) by wrapping a CommonJS transpilation.
 */

/** Origin of the hosted checkout in production. Locally the gateway serves it: pass `checkoutOrigin`. */
export const CHECKOUT_ORIGIN = "https://checkout.eventhub.example";

/** What the frame shows. Only the hosted checkout so far. */
export const PaymentTarget = {
  Checkout: "checkout",
} as const;
export type PaymentTarget = (typeof PaymentTarget)[keyof typeof PaymentTarget];

/** Kinds of message the hosted checkout posts to the embedding page (`event.data.type`). */
export const PaymentEvent = {
  /** The hosted checkout is ready. */
  Loaded: "loaded",
  /** The payment result was accepted; the authoritative state is being refreshed (wait for the webhook). */
  PaymentSuccess: "payment-success",
  /** The payment could not continue; `payload.error` says why. */
  PaymentError: "payment-error",
  /** The customer closed the checkout. */
  PaymentCanceled: "payment-canceled",
} as const;
export type PaymentEvent = (typeof PaymentEvent)[keyof typeof PaymentEvent];

/** The error carried by `payment-error`: a message a person can read, and a stable code when there is one. */
export type PaymentError = string | { code?: string; message: string; [key: string]: unknown };

export type LoadedMessage = { type: typeof PaymentEvent.Loaded; payload?: Record<string, unknown> };
export type PaymentSuccessMessage = { type: typeof PaymentEvent.PaymentSuccess; payload?: Record<string, unknown> };
export type PaymentErrorMessage = {
  type: typeof PaymentEvent.PaymentError;
  payload: { error: PaymentError; [key: string]: unknown };
};
export type PaymentCanceledMessage = { type: typeof PaymentEvent.PaymentCanceled; payload?: Record<string, unknown> };
/** `event.data` of a message from the hosted checkout. */
export type PaymentMessage = LoadedMessage | PaymentSuccessMessage | PaymentErrorMessage | PaymentCanceledMessage;

export type PaymentFrameParams = {
  target: PaymentTarget;
  /** The session's `checkoutId` (24 lowercase hexadecimal characters), from your backend's create call. */
  checkoutId: string;
  /** The session's `clientSecret`. It goes into the URL fragment only, which browsers never send. */
  clientSecret: string;
  /** Origin of the hosted checkout; default {@link CHECKOUT_ORIGIN}. Locally `http://127.0.0.1:54321`. */
  checkoutOrigin?: string;
  /**
   * Path of the service's pages on `checkoutOrigin`; default none. On a Supabase project's own
   * domain the `api` function serves them under `/functions/v1/api`.
   */
  checkoutPath?: string;
};

export type CreatePaymentFrameOptions = {
  /** The container; the frame fills it (width and height 100%), so give it a height (720 px works well). */
  el: HTMLElement;
  params: PaymentFrameParams;
};

const CHECKOUT_ID = /^[0-9a-f]{24}$/; // the service's ObjectIDs (core.object_id)
// Path segments without "." or "..", no query or fragment, no trailing slash.
const CHECKOUT_PATH = /^(?:\/(?!\.\.?(?:\/|$))[\w.~%-]+)*$/;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
const KNOWN_TYPES: ReadonlySet<unknown> = new Set(Object.values(PaymentEvent));

function fail(message: string): never {
  throw new Error(`@eventhub/sdk: ${message}`);
}

/** The origin itself when it is a bare https origin (or http on a loopback host); throws otherwise. */
function checkOrigin(origin: unknown, what: string): string {
  if (typeof origin !== "string" || origin === "") fail(`${what} must be an origin such as ${CHECKOUT_ORIGIN}`);
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    fail(`${what} is not a valid origin: ${JSON.stringify(origin)}`);
  }
  if (url.origin !== origin) {
    fail(`${what} must be a bare origin (scheme, host and port; no path or trailing slash), got ${JSON.stringify(origin)}`);
  }
  const loopback = url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== "https:" && !loopback) {
    fail(`${what} must use https (plain http only for 127.0.0.1, localhost or [::1]), got ${JSON.stringify(origin)}`);
  }
  return origin;
}

function checkParams(params: unknown): Required<PaymentFrameParams> {
  if (typeof params !== "object" || params === null) fail("params is required: { target, checkoutId, clientSecret }");
  const p = params as Partial<PaymentFrameParams>;
  if (p.target !== PaymentTarget.Checkout) fail(`params.target must be PaymentTarget.Checkout ("checkout"), got ${JSON.stringify(p.target)}`);
  if (typeof p.checkoutId !== "string" || !CHECKOUT_ID.test(p.checkoutId)) {
    fail(`params.checkoutId must be the session's checkoutId (24 hexadecimal characters, lowercase), got ${JSON.stringify(p.checkoutId)}`);
  }
  if (typeof p.clientSecret !== "string" || p.clientSecret.trim() === "") {
    fail("params.clientSecret must be the session's clientSecret (a non-empty string)");
  }
  const checkoutOrigin = checkOrigin(p.checkoutOrigin ?? CHECKOUT_ORIGIN, "params.checkoutOrigin");
  const checkoutPath = p.checkoutPath ?? "";
  if (typeof checkoutPath !== "string" || !CHECKOUT_PATH.test(checkoutPath)) {
    fail(`params.checkoutPath must be a path such as /functions/v1/api (no trailing slash, query or fragment), got ${JSON.stringify(p.checkoutPath)}`);
  }
  return { target: p.target, checkoutId: p.checkoutId, clientSecret: p.clientSecret, checkoutOrigin, checkoutPath };
}

/**
 * Mounts the hosted checkout into `el` and returns the frame.
 *
 * The frame's URL is `{origin}{path}/checkout/{checkoutId}?embed=1&parentOrigin={this page's origin}`
 * with `#clientSecret=…` in the fragment: browsers send neither the fragment in requests nor (with
 * `referrerpolicy="origin"`) anything but this page's origin as referrer. The hosted page checks
 * `parentOrigin` against the session's `allowedOrigin`.
 *
 * Throws an Error naming the problem when `el` or `params` is not usable.
 */
export function createPaymentFrame({ el, params }: CreatePaymentFrameOptions): { frame: HTMLIFrameElement } {
  const { checkoutId, clientSecret, checkoutOrigin, checkoutPath } = checkParams(params);
  if (typeof el !== "object" || el === null || typeof (el as { appendChild?: unknown }).appendChild !== "function") {
    fail("el must be the container element to mount the checkout in");
  }
  const parentOrigin = typeof window === "undefined" ? undefined : window.location.origin;
  if (!parentOrigin || parentOrigin === "null") {
    fail("the page needs an http(s) origin (not file:// or a sandboxed frame): the checkout only talks to its allowedOrigin");
  }
  const src =
    `${checkoutOrigin}${checkoutPath}/checkout/${encodeURIComponent(checkoutId)}` +
    `?embed=1&parentOrigin=${encodeURIComponent(parentOrigin)}` +
    `#clientSecret=${encodeURIComponent(clientSecret)}`;

  const frame = el.ownerDocument.createElement("iframe");
  // Set before src: the first request already carries only this page's origin as referrer.
  frame.setAttribute("referrerpolicy", "origin");
  frame.setAttribute("allow", "payment; clipboard-write");
  frame.setAttribute("title", "Checkout");
  frame.style.width = "100%";
  frame.style.height = "100%";
  frame.style.border = "0";
  frame.style.display = "block";
  frame.src = src;
  el.appendChild(frame);
  return { frame };
}

/**
 * True when `event` is a `message` event from the hosted checkout at `origin` (exactly) whose data
 * is a known {@link PaymentMessage}. Narrows `event.data`.
 *
 * Also check that the message comes from your frame: `event.source === frame.contentWindow`
 * (another frame of the same origin could post too). Use the messages for the UI only; the
 * webhook is the proof of payment.
 *
 * @example
 * window.addEventListener("message", (event) => {
 *   if (!isPaymentEvent(event, CHECKOUT_ORIGIN) || event.source !== frame.contentWindow) return;
 *   if (event.data.type === PaymentEvent.PaymentError) showError(event.data.payload.error);
 * });
 */
export function isPaymentEvent(event: unknown, origin: string = CHECKOUT_ORIGIN): event is MessageEvent<PaymentMessage> {
  if (typeof MessageEvent === "undefined" || !(event instanceof MessageEvent)) return false;
  if (event.origin !== origin) return false;
  const data: unknown = event.data;
  if (typeof data !== "object" || data === null) return false;
  const { type, payload } = data as { type?: unknown; payload?: unknown };
  if (!KNOWN_TYPES.has(type)) return false;
  if (payload !== undefined && (typeof payload !== "object" || payload === null)) return false;
  if (type === PaymentEvent.PaymentError) {
    const error = (payload as { error?: unknown } | undefined)?.error;
    const readable = typeof error === "string" || (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string");
    if (!readable) return false;
  }
  return true;
}
