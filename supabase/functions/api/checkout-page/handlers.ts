import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRouter } from "../../_shared/http/app.ts";
import { allowedOriginOf } from "../../_shared/checkout/client-session.ts";
import { CHECKOUT_ASSET_PATHS, CHECKOUT_PAGE_PATH, checkoutPageHeaders, SDK_SCRIPT_PATH } from "./routes.ts";
// Built from packages/sdk by scripts/build-function-assets.ts, so a deployment carries it.
import { sdkScript } from "./sdk-script.generated.ts";

// The page's own files, read once at start. Their URLs carry a hash of their content, so they can
// be cached for good while the HTML (never cached) always names the current ones.
const read = (name: string) => readFileSync(new URL(name, import.meta.url), "utf8");
const script = read("page.js");
const style = read("page.css");
const version = createHash("sha256").update(script).update(style).digest("hex").slice(0, 16);
const html = read("page.html").replaceAll("__VERSION__", version);

const OBJECT_ID = /^[0-9a-f]{24}$/;
const IMMUTABLE = "public, max-age=31536000, immutable";

export const checkoutPageRouter = createRouter();

// The assets first: "assets" is no checkout id, but the page's pattern would take it.
checkoutPageRouter.get(CHECKOUT_ASSET_PATHS.script, (c) =>
  c.body(script, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": IMMUTABLE, "x-content-type-options": "nosniff" }));
checkoutPageRouter.get(CHECKOUT_ASSET_PATHS.style, (c) =>
  c.body(style, 200, { "content-type": "text/css; charset=utf-8", "cache-control": IMMUTABLE, "x-content-type-options": "nosniff" }));

checkoutPageRouter.get(CHECKOUT_PAGE_PATH, async (c) => {
  const checkoutId = c.req.param("checkoutId");
  // Any id gets the page (it shows the error itself); an unknown one may be framed by nobody.
  const allowedOrigin = OBJECT_ID.test(checkoutId) ? await allowedOriginOf(c.get("db"), checkoutId) : null;
  return c.body(html, 200, checkoutPageHeaders(allowedOrigin));
});

checkoutPageRouter.get(SDK_SCRIPT_PATH, (c) =>
  // A stable URL whose content changes with each release: revalidate rather than cache for good.
  c.body(sdkScript, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=300", "x-content-type-options": "nosniff" }));
