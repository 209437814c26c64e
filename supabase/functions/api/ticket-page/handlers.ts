// The ticket page (GET /tickets#<token>): static HTML, script and stylesheet read once at start, and
// the QR encoder's browser file (qrcode-generator, made a module by scripts/build-function-assets.ts
// so a deployment carries it). Asset URLs carry a hash of their content, so they are cached for
// good while the HTML names the current ones.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { TICKET_PAGE_PATH } from "../../_shared/checkin/operations.ts";
import { createRouter } from "../../_shared/http/app.ts";
import { qrEncoder as encoder } from "./qr-encoder.generated.ts";
import { TICKET_ASSET_PATHS, TICKET_PAGE_HEADERS } from "./routes.ts";

const read = (name: string) => readFileSync(new URL(name, import.meta.url), "utf8");

const script = read("page.js");
const style = read("page.css");
const version = createHash("sha256").update(script).update(style).update(encoder).digest("hex").slice(0, 16);
const html = read("page.html").replaceAll("__VERSION__", version);

const IMMUTABLE = "public, max-age=31536000, immutable";
const asset = (contentType: string) => ({ "content-type": contentType, "cache-control": IMMUTABLE, "x-content-type-options": "nosniff" });

export const ticketPageRouter = createRouter();

ticketPageRouter.get(TICKET_PAGE_PATH, (c) => c.body(html, 200, TICKET_PAGE_HEADERS));
ticketPageRouter.get(TICKET_ASSET_PATHS.script, (c) => c.body(script, 200, asset("text/javascript; charset=utf-8")));
ticketPageRouter.get(TICKET_ASSET_PATHS.style, (c) => c.body(style, 200, asset("text/css; charset=utf-8")));
ticketPageRouter.get(TICKET_ASSET_PATHS.encoder, (c) => c.body(encoder, 200, asset("text/javascript; charset=utf-8")));
