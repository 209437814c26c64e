// Paths and response headers of the hosted checkout page. These are pages, not API operations, so
// they stay out of the OpenAPI document (like /api/v3/docs).

/** The page; `checkoutUrl` is `<CHECKOUT_UI_URL>/checkout/<id>#clientSecret=...`, or the api function's own (http/public-urls.ts). */
export const CHECKOUT_PAGE_PATH = "/checkout/:checkoutId";
/** Its script and stylesheet, relative to the page (`assets/page.js`), so a path prefix (Supabase's /functions/v1/api) needs no configuration. */
export const CHECKOUT_ASSET_PATHS = { script: "/checkout/assets/page.js", style: "/checkout/assets/page.css" } as const;
/** The SDK as a classic script for a plain `<script>` tag (window.EventhubSDK). */
export const SDK_SCRIPT_PATH = "/sdk/v1/eventhub-sdk.js";

/**
 * An origin as checkout.sessions stores it (validated at creation): scheme, host, optional port.
 * Checked again before it goes into a header, so no stored value can add a CSP directive.
 */
const SAFE_ORIGIN = /^https?:\/\/[A-Za-z0-9.\-]+(:\d{1,5})?$|^https?:\/\/\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The page's headers. `frame-ancestors` names the session's allowedOrigin, so only that storefront
 * can embed it (an unknown session: nobody). Scripts, styles and requests go to this origin only;
 * item images may come from any https host. No referrer leaves the page, and the HTML is never
 * cached: it is the same for every session, but its frame-ancestors is not.
 */
export function checkoutPageHeaders(allowedOrigin: string | null): Record<string, string> {
  const ancestors = allowedOrigin && SAFE_ORIGIN.test(allowedOrigin) ? allowedOrigin : "'none'";
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "connect-src 'self'",
      "img-src https: data:",
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${ancestors}`,
    ].join("; "),
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
  };
}
