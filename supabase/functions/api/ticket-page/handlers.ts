// The ticket page (GET /tickets#<token>): static HTML, script and stylesheet, and the QR encoder's
// browser file (qrcode-generator from node_modules), all read once at start. Asset URLs carry a hash
// of their content, so they are cached for good while the HTML names the current ones.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { TICKET_PAGE_PATH } from "../../_shared/checkin/operations.ts";
import { createRouter } from "../../_shared/http/app.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { TICKET_ASSET_PATHS, TICKET_PAGE_HEADERS } from "./routes.ts";

const read = (name: string) => readFileSync(new URL(name, import.meta.url), "utf8");

/** The encoder's classic script (it defines `window.qrcode`); null where node_modules is not deployed beside us. */
function readEncoder(): string | null {
  try {
    return readFileSync(createRequire(import.meta.url).resolve("qrcode-generator"), "utf8");
  } catch {
    return null;
  }
}

const script = read("page.js");
const style = read("page.css");
const encoder = readEncoder();
const version = createHash("sha256").update(script).update(style).update(encoder ?? "").digest("hex").slice(0, 16);
const html = read("page.html").replaceAll("__VERSION__", version);

const IMMUTABLE = "public, max-age=31536000, immutable";
const asset = (contentType: string) => ({ "content-type": contentType, "cache-control": IMMUTABLE, "x-content-type-options": "nosniff" });

export const ticketPageRouter = createRouter();

ticketPageRouter.get(TICKET_PAGE_PATH, (c) => c.body(html, 200, TICKET_PAGE_HEADERS));
ticketPageRouter.get(TICKET_ASSET_PATHS.script, (c) => c.body(script, 200, asset("text/javascript; charset=utf-8")));
ticketPageRouter.get(TICKET_ASSET_PATHS.style, (c) => c.body(style, 200, asset("text/css; charset=utf-8")));
ticketPageRouter.get(TICKET_ASSET_PATHS.encoder, (c) => {
  if (encoder === null) throw new ApiError(404, "not_found", "The QR encoder is not deployed with this service.");
  return c.body(encoder, 200, asset("text/javascript; charset=utf-8"));
});
