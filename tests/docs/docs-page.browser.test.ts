// The interactive reference in a real browser, offline: Debian's Chromium opens /api/v3/docs on the
// real Deno gateway (as `npm start` runs it), every request to another host is refused, and the page
// must still render the reference from our OpenAPI document, with Scalar's script from the gateway.
import { existsSync } from "node:fs";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_INSTALL, CHROMIUM_PATH } from "../../scripts/lib/chromium.ts";
import { startGatewayProcess, type GatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { SCALAR_VERSION } from "../../supabase/functions/api/docs/handlers.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";

let t: TestContext;
let gateway: GatewayProcess;
let browser: Browser;

beforeAll(async () => {
  t = await createTestContext();
  gateway = await startGatewayProcess({ DATABASE_URL: t.url });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await gateway?.stop("SIGKILL");
  await t?.close();
});

async function launchBrowser() {
  // A failed test, never a skip: `npm test` installs chromium as root; elsewhere it is installed by hand.
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium is not installed at ${CHROMIUM_PATH}. Install it with: ${CHROMIUM_INSTALL}`);
  browser ??= await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 120_000 });
}

/** Opens `path` with every request off the gateway's origin aborted; returns what was served and refused. */
async function openOffline(path: string, viewport?: { width: number; height: number }): Promise<{ page: Page; served: string[]; refused: string[]; errors: string[] }> {
  const page = await browser.newPage(viewport ? { viewport } : {});
  const origin = new URL(gateway.url).origin;
  const served: string[] = [];
  const refused: string[] = [];
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.route("**/*", (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) {
      served.push(url);
      return route.continue();
    }
    refused.push(url);
    return route.abort();
  });
  await page.goto(gateway.url + path, { waitUntil: "load", timeout: 60_000 });
  return { page, served, refused, errors };
}

describe("the API reference page in Chromium", () => {
  it("renders our OpenAPI document with Scalar served by the gateway, and nothing from other hosts", async () => {
    await launchBrowser();

    const doc = await (await fetch(`${gateway.url}/api/v3/openapi`)).json();
    const title: string = doc.info.title;
    const { summary: listEvents, tags: [eventsTag] } = doc.paths["/api/v3/events"].get;
    expect([title, eventsTag, listEvents]).toEqual(["Events, hubs, sponsorship and NFT checkout API", "Events", "List events visible to the key's owner"]);

    const { page, served, refused, errors } = await openOffline("/api/v3/docs");
    const shown = async (what: string, locator: Locator) => {
      try {
        await locator.first().waitFor({ state: "visible", timeout: 60_000 });
      } catch {
        const text = (await page.locator("body").innerText().catch(() => "")).slice(0, 500);
        throw new Error(`${what} never appeared on /api/v3/docs.\nserved: ${served.join(", ")}\nrefused: ${refused.join(", ")}\n` +
          `page errors: ${errors.join("; ")}\npage text: ${JSON.stringify(text)}`);
      }
      return locator.first();
    };
    await shown(`the heading "${title}"`, page.getByRole("heading", { name: title, exact: true }));
    // Tag groups start collapsed: open "Events" in the sidebar, then go to the list operation.
    await (await shown(`the sidebar group "${eventsTag}"`, page.getByRole("button", { name: eventsTag }))).click();
    await (await shown(`the sidebar entry "${listEvents}"`, page.getByText(listEvents, { exact: true }))).click();
    await shown(`the operation "${listEvents}"`, page.getByRole("heading", { name: listEvents }));

    expect(served).toContain(`${gateway.url}/api/v3/docs/scalar.js?v=${SCALAR_VERSION}`);
    expect(served).toContain(`${gateway.url}/api/v3/openapi`);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  // Scalar's controls that call its cloud (client.scalar.com, Agent Scalar, MCP generation, the
  // developer toolbar's Configure/Share/Deploy) do nothing offline: the page must not offer them.
  const CLOUD_CONTROLS = /^(Ask AI|Generate MCP|Open API Client|Open in API Client|Developer Tools|Configure|Share|Deploy|VS Code|Cursor)\b/;

  it.each([{ width: 1280, height: 800 }, { width: 390, height: 844 }])(
    "at $width x $height: no cloud-only controls, the API-key scheme selected, a favicon served here",
    async (viewport) => {
      await launchBrowser();
      const { page, refused, errors } = await openOffline("/api/v3/docs", viewport);
      await page.getByText("Events, hubs, sponsorship and NFT checkout API", { exact: true }).first().waitFor({ state: "visible", timeout: 60_000 });
      // The sidebar of the narrow layout sits behind its menu button: open it, so its controls are looked at too.
      if (viewport.width < 1000) await page.getByRole("button", { name: "Open Menu" }).first().click();
      await page.getByRole("button", { name: /Selected Auth Type: ApiKeyAuth/ }).first().waitFor({ state: "attached", timeout: 30_000 });

      const controls = await page.locator("button, a, [role=button]").evaluateAll((elements) =>
        elements.map((element) => `${element.textContent ?? ""} ${element.getAttribute("aria-label") ?? ""}`.replace(/\s+/g, " ").trim()));
      expect(controls.length).toBeGreaterThan(20);
      expect(controls.filter((name) => CLOUD_CONTROLS.test(name))).toEqual([]);
      expect(await page.getByText("Selected Auth Type: ApiKeyAuth").count()).toBeGreaterThan(0);

      const icons = await page.locator("link[rel~=icon]").evaluateAll((links) => links.map((link) => (link as HTMLLinkElement).href));
      expect(icons).toEqual([`${gateway.url}/favicon.svg`]);
      const icon = await page.request.get(icons[0]!);
      expect([icon.status(), icon.headers()["content-type"]]).toEqual([200, "image/svg+xml"]);
      expect(await icon.text()).toMatch(/^<svg /);
      expect((await fetch(`${gateway.url}/favicon.ico`)).status).toBe(200);

      expect(refused).toEqual([]);
      expect(errors).toEqual([]);
      await page.close();
    },
    180_000,
  );
});
