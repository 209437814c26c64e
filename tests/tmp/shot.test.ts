import { chromium } from "playwright-core";
import { it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/lib/chromium.ts";
import { startGatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { createTestContext } from "../setup/test-context.ts";
it("shots", async () => {
  const t = await createTestContext();
  const gateway = await startGatewayProcess({ DATABASE_URL: t.url });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  for (const [w, h] of [[1280, 800], [390, 844]]) {
    const page = await browser.newPage({ viewport: { width: w, height: h } });
    await page.route("**/*", (r) => new URL(r.request().url()).origin === new URL(gateway.url).origin ? r.continue() : r.abort());
    await page.goto(gateway.url + "/api/v3/docs", { waitUntil: "load" });
    await page.getByRole("heading", { name: "Events, hubs, sponsorship and NFT checkout API" }).first().waitFor({ timeout: 60000 });
    await page.waitForTimeout(1500);
    await page.screenshot({ path: `/tmp/spec/docs-${w}.png` });
    const buttons = await page.locator("button, a").evaluateAll((els) => els.map((e) => (e.textContent ?? "").trim() + "|" + (e.getAttribute("aria-label") ?? "")).filter((s) => s !== "|"));
    console.log(w, JSON.stringify(buttons.slice(0, 80)));
    console.log(await page.evaluate(() => [...document.querySelectorAll("link[rel~=icon]")].map((l) => (l as HTMLLinkElement).href)));
    await page.close();
  }
  await browser.close(); await gateway.stop("SIGKILL"); await t.close();
}, 180000);
