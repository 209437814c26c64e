// The ticket page in a real browser (Debian's Chromium driven by playwright-core), served by the real
// Deno gateway: a ticket from the REST API opened as /tickets#<token> is drawn as a QR code that
// decodes back to the token (jsQR on a screenshot's pixels); the page asks nothing of any server but
// its own files, so the token reaches no request and no log; it fits desktop and phone widths
// (screenshots in .local/screenshots).
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import jsQR from "jsqr";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/lib/chromium.ts";
import { type GatewayProcess, startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { eventBody } from "../events/event-fixtures.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

const SCREENSHOTS = join(REPO_ROOT, ".local", "screenshots");
const SIZES = [{ name: "desktop", width: 1280, height: 800, deviceScaleFactor: 1 }, { name: "phone", width: 390, height: 844, deviceScaleFactor: 2 }];

let t: TestContext;
let gateway: GatewayProcess;
let browser: Browser;
let ticket: { reservationId: string; eventId: string; ticketVersion: number; token: string };

async function api(method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${gateway.url}${path}`, {
    method, headers: { "x-api-key": key, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined,
  });
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  t = await createTestContext();
  gateway = await startGatewayProcess({ DATABASE_URL: t.url, TICKET_SIGNING_KEYS: await generateTicketSigningKey() });
  const host = await t.userWithKey();
  const guest = await t.userWithKey([], { email: "guest@example.com" });
  const event = await api("POST", "/api/v3/events", host.key, eventBody({ status: "PUBLISHED" }));
  const reservation = await api("POST", `/api/v3/events/${event.id}/reservations`, guest.key);
  ticket = await api("GET", `/api/v3/events/${event.id}/reservations/${reservation.id}/ticket`, guest.key);
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await gateway?.stop("SIGKILL");
  await t?.close();
});

/** Opens `url` at `size`, keeping every request the page made and every error it logged. */
async function open(url: string, size: (typeof SIZES)[number]): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: size.width, height: size.height }, deviceScaleFactor: size.deviceScaleFactor });
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => { if (message.type() === "error") errors.push(message.text()); });
  await page.goto(url, { waitUntil: "load" });
  return { page, requests, errors };
}

/** The QR code in a PNG, read by jsQR from its pixels (decoded by a blank page's canvas). */
async function decodeQr(png: Buffer): Promise<string | null> {
  const scratch = await browser.newPage();
  const { width, height, data } = await scratch.evaluate(async (source) => {
    const image = new Image();
    image.src = source;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext("2d")!;
    context.drawImage(image, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height);
    return { width: pixels.width, height: pixels.height, data: Array.from(pixels.data) };
  }, `data:image/png;base64,${png.toString("base64")}`);
  await scratch.close();
  return jsQR(new Uint8ClampedArray(data), width, height)?.data ?? null;
}

describe("the ticket page", { timeout: 60_000 }, () => {
  it("is served with a CSP that allows its own scripts and styles and nothing else, and its files", async () => {
    const response = await fetch(`${gateway.url}/tickets`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; script-src 'self'; style-src 'self'; " +
      "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const assets = [...(await response.text()).matchAll(/(?:src|href)="(tickets\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.map((a) => a.split("?")[0])).toEqual(["tickets/assets/page.css", "tickets/assets/qrcode.js", "tickets/assets/page.js"]);
    for (const asset of assets) {
      const served = await fetch(`${gateway.url}/${asset}`);
      expect(served.status, asset).toBe(200);
      expect(served.headers.get("cache-control"), asset).toContain("immutable");
    }
  });

  for (const size of SIZES) {
    it(`draws the ticket's QR code, which decodes to the token, at ${size.name} width (${size.width} px)`, async () => {
      const url = `${gateway.url}/tickets#${ticket.token}`;
      const { page, requests, errors } = await open(url, size);
      const code = page.locator("#code svg");
      await code.waitFor();
      expect(await page.locator("#reservation").textContent()).toBe(ticket.reservationId);
      expect(await page.locator("#version").textContent()).toBe(String(ticket.ticketVersion));
      expect(await page.locator("#error").isHidden()).toBe(true);

      expect(await decodeQr(await code.screenshot())).toBe(ticket.token);
      const box = (await code.boundingBox())!;
      expect(box.width, "the code is large enough to scan from a phone").toBeGreaterThanOrEqual(Math.min(300, size.width - 80));
      expect(box.y + box.height, "the code is on the first screen").toBeLessThanOrEqual(size.height);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, "nothing overflows the width").toBeLessThanOrEqual(0);
      await page.screenshot({ path: join(SCREENSHOTS, `ticket-page-${size.width}.png`), fullPage: true });

      expect(requests.map((r) => new URL(r).pathname).sort()).toEqual(["/tickets", "/tickets/assets/page.css", "/tickets/assets/page.js", "/tickets/assets/qrcode.js"]);
      for (const request of requests) expect(request.split("#")[0]).not.toContain(ticket.token);
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it("says so when the link holds no ticket, and draws nothing", async () => {
    for (const fragment of ["", "#not-a-ticket", `#${ticket.token.split(".").slice(0, 2).join(".")}`]) {
      const { page, errors } = await open(`${gateway.url}/tickets${fragment}`, SIZES[1]!);
      await page.locator("#error").waitFor();
      expect(await page.locator("#error").textContent(), fragment).toContain("holds no ticket");
      expect(await page.locator("#code svg").count(), fragment).toBe(0);
      expect(errors, fragment).toEqual([]);
      if (fragment === "#not-a-ticket") await page.screenshot({ path: join(SCREENSHOTS, "ticket-page-no-ticket-390.png"), fullPage: true });
      await page.context().close();
    }
    expect(gateway.output()).not.toContain(ticket.token);
  });
});
