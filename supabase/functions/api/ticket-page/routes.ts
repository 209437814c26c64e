// Paths and response headers of the ticket page, a page rather than an API operation, so it stays
// out of the OpenAPI document (like the checkout page).
import { TICKET_PAGE_PATH } from "../../_shared/checkin/operations.ts";

/** Its files, relative to the page (`tickets/assets/page.js`), so a path prefix needs no configuration. */
export const TICKET_ASSET_PATHS = {
  script: `${TICKET_PAGE_PATH}/assets/page.js`,
  style: `${TICKET_PAGE_PATH}/assets/page.css`,
  encoder: `${TICKET_PAGE_PATH}/assets/qrcode.js`,
} as const;

/**
 * The page's headers. It makes no request of its own and is framed by nobody: scripts and styles
 * from this origin only, nothing else at all. The HTML is the same for every ticket (the ticket is in
 * the fragment), so it may be cached: a person who opened their link once can reopen it at a door
 * without signal.
 */
export const TICKET_PAGE_HEADERS: Record<string, string> = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
  ].join("; "),
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "public, max-age=86400",
};
