// Confirmation links in a real browser (Debian's Chromium driven by playwright-core)
// with an injected EIP-1193 wallet whose accounts are anvil's and whose other requests go to anvil.
// An assistant (the SDK's MCP Client with the person's OAuth token) asks for an action; the person
// opens the link, signs in with the e-mail code if needed, sees the action and approves it with the
// wallet (a SIWE signature) or refuses; the assistant polls the status. Refused: a second use, an
// expired link, another person's session, a link whose stored action or id was tampered with. An
// approval whose process died shows as interrupted once its lease ran out.
// Screenshots at 1280 and 375 px land in .local/screenshots.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser as Chromium, type BrowserContext, type Page } from "playwright-core";
import type { HDAccount } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../scripts/lib/chromium.ts";
import { REPO_ROOT } from "../../scripts/lib/local-postgres.ts";
import { linkAddress } from "../../scripts/lib/admin-operations.ts";
import { MCP_SCOPES, sha256 } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { bindingOf } from "../../supabase/functions/_shared/confirmations/actions.ts";
import { startChain } from "../chain/chain-fixtures.ts";
import { createTestContext, type TestContext } from "../setup/test-context.ts";
import { authorizeInBrowser, Browser, type MailCatcher, type OAuthTestContext, pkce, serveOverHttp, startMailCatcher, tokenRequest } from "./oauth-fixtures.ts";

const SCREENSHOTS = join(REPO_ROOT, ".local", "screenshots");

let ctx: TestContext;
let mail: MailCatcher;
let served: Awaited<ReturnType<typeof serveOverHttp>>;
let root: string;
let browser: Chromium;
let chain: Awaited<ReturnType<typeof startChain>>;
let ada: Client;
let bob: Client;
let adaId: string;
let adaPage: BrowserContext; // Ada's browser, signed in once
let sponsor: HDAccount;

/** The person's OAuth grant to an assistant with every scope, through the sign-in and consent pages; an MCP Client with its token. */
async function assistantOf(email: string): Promise<Client> {
  const oauth = { ...ctx, mail, root, fetch: (input: string | URL | Request, init?: RequestInit) => ctx.app.fetch(new Request(input, init)) } as OAuthTestContext;
  const redirectUri = "http://127.0.0.1:7777/cb";
  const registered = await (await oauth.fetch(`${root}/oauth/register`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ client_name: "Trip Planner", redirect_uris: [redirectUri] }),
  })).json();
  const { verifier, challenge } = pkce();
  const authorize = new URL(`${root}/oauth/authorize`);
  for (const [k, v] of Object.entries({ response_type: "code", client_id: registered.client_id, redirect_uri: redirectUri, code_challenge: challenge,
    code_challenge_method: "S256", state: "s", resource: `${root}/mcp`, scope: MCP_SCOPES.join(" ") })) authorize.searchParams.set(k, v);
  const callback = await authorizeInBrowser(oauth, new Browser(oauth), authorize.toString(), email, [...MCP_SCOPES]);
  const tokens = await (await tokenRequest(oauth, { grant_type: "authorization_code", code: callback.searchParams.get("code")!, redirect_uri: redirectUri,
    client_id: registered.client_id, code_verifier: verifier, resource: `${root}/mcp` })).json();
  const client = new Client({ name: "trip-planner", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${root}/mcp`), {
    fetch: oauth.fetch, requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
  }));
  return client;
}

type Link = { confirmationId: string; url: string; status: string; action: Record<string, unknown>; outcome: unknown };
async function ask(client: Client, tool: string, args: Record<string, unknown>): Promise<Link> {
  const result = await client.callTool({ name: tool, arguments: args });
  if (result.isError) throw new Error(`${tool}: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Link;
}
const status = async (client: Client, id: string) =>
  (await client.callTool({ name: "get_confirmation_status", arguments: { confirmationId: id } })).structuredContent as Link;

/** A page with `account` as its injected wallet (window.ethereum): accounts and signatures from viem, everything else from anvil. */
async function walletPage(context: BrowserContext, account: HDAccount, width = 1280): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  await page.setViewportSize({ width, height: width < 500 ? 740 : 800 });
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  await page.exposeFunction("anvilWallet", async (method: string, params: unknown[]) => {
    if (method === "eth_requestAccounts" || method === "eth_accounts") return [account.address];
    if (method === "personal_sign") return account.signMessage({ message: { raw: params[0] as `0x${string}` } });
    if (method === "eth_sendTransaction") {
      const [tx] = params as [{ to: `0x${string}`; value: `0x${string}` }];
      return chain.wallet(account).sendTransaction({ to: tx.to, value: BigInt(tx.value) });
    }
    return chain.publicClient.request({ method, params } as never);
  });
  await page.addInitScript(() => {
    const call = (window as unknown as { anvilWallet: (m: string, p: unknown[]) => Promise<unknown> }).anvilWallet;
    (window as unknown as { ethereum: unknown }).ethereum = { request: ({ method, params }: { method: string; params?: unknown[] }) => call(method, params ?? []) };
  });
  return { page, errors };
}

/** Screenshots at 1280 and 375 px (the page's own width restored after); nothing may overflow either width. */
async function shoot(page: Page, name: string): Promise<void> {
  const own = page.viewportSize()!;
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: width < 500 ? 740 : 800 });
    await page.screenshot({ path: join(SCREENSHOTS, `mcp-confirm-${name}-${width}.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow, `${name} at ${width} px overflows by ${overflow} px`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize(own);
}

/** Signs `context` in through the link page's "Sign in" (a new tab with the sign-in pages), then continues on the link's page. */
async function signInFromLink(context: BrowserContext, page: Page, email: string): Promise<void> {
  await page.getByRole("heading", { name: "Sign in to continue" }).waitFor();
  await shoot(page, `sign-in-${email.split("@")[0]}`);
  const [tab] = await Promise.all([context.waitForEvent("page"), page.getByRole("link", { name: "Sign in" }).click()]);
  await tab.waitForLoadState();
  const before = mail.mails.length;
  await tab.getByLabel("E-mail address").fill(email);
  await tab.getByRole("button", { name: "Send code" }).click();
  await tab.getByLabel("Code").fill(await mail.codeFor(email, before));
  await tab.getByRole("button", { name: "Continue" }).click();
  await tab.getByRole("heading", { name: "Connected assistants" }).waitFor();
  await tab.close();
  await page.getByRole("button", { name: "I have signed in" }).click();
}

/** A POST of the page's own script (same origin, its cookie), here with a token and body of the test's choosing. */
const pagePost = (page: Page, id: string, step: string, token: string, body: unknown = {}) =>
  page.evaluate(async ([id, step, token, body]) => {
    const r = await fetch(`/confirm/${id}/${step}`, { method: "POST", headers: { "content-type": "application/json", "x-confirmation-token": token as string }, body: JSON.stringify(body) });
    return { status: r.status, body: await r.json() };
  }, [id, step, token, body] as const);

const tokenOf = (link: Link) => new URLSearchParams(new URL(link.url).hash.slice(1)).get("token")!;

beforeAll(async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  chain = await startChain();
  mail = await startMailCatcher();
  served = await serveOverHttp(() => ctx.app);
  root = served.root;
  ctx = await createTestContext({
    SMTP_URL: mail.url, MAIL_FROM: "Events <no-reply@example.test>", PUBLIC_API_ROOT: root, SIWE_DOMAINS: new URL(root).host,
    EVM_CHAINS: JSON.stringify([{ chainId: chain.anvil.chainId, rpcUrl: chain.anvil.rpcUrl, confirmations: 1, sponsorshipVault: chain.anvil.accounts[9]!.address }]),
  });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 60_000 });
  ada = await assistantOf("ada@example.com");
  bob = await assistantOf("bob@example.com");
  adaId = (await ctx.owner<{ id: string }[]>`select id from core.users where email = 'ada@example.com'`)[0]!.id;
  sponsor = chain.anvil.accounts[2]!;
  await linkAddress(ctx.adminDb, { userId: adaId, address: sponsor.address, chainId: String(chain.anvil.chainId), connector: "injected" });
  adaPage = await browser.newContext();
});
afterAll(async () => {
  await browser?.close();
  await Promise.all([ada?.close(), bob?.close()]);
  await ctx?.close();
  await mail?.close();
  await served?.close();
  await chain?.anvil.stop();
});

describe("confirmation links in Chromium with an anvil wallet", () => {
  it("wallet link: signs in from the link, shows the action, approves with a SIWE signature; the wallet is linked and the status approved", async () => {
    const wallet = chain.anvil.accounts[1]!;
    const link = await ask(ada, "request_wallet_link", { chainId: chain.anvil.chainId });
    expect(link.status).toBe("pending");
    const { page, errors } = await walletPage(adaPage, wallet);
    await page.goto(link.url);
    expect(new URL(page.url()).hash, "the page removes the token from the address bar").toBe("");
    await signInFromLink(adaPage, page, "ada@example.com");
    await page.getByRole("heading", { name: "Link a wallet to your account" }).waitFor();
    await expect.poll(() => page.locator("#rows").innerText()).toContain(String(chain.anvil.chainId));
    await page.getByText("Trip Planner", { exact: true }).waitFor();
    await shoot(page, "wallet-link");
    await page.getByRole("button", { name: "Approve with wallet" }).click();
    await page.getByText("Approved: done.").waitFor();
    await shoot(page, "approved");
    expect(errors).toEqual([]);

    const polled = await status(ada, link.confirmationId);
    expect(polled).toMatchObject({ status: "approved", outcome: { result: { address: wallet.address, chainId: chain.anvil.chainId, connector: "injected" } } });
    const wallets = (await ada.callTool({ name: "list_my_wallets", arguments: {} })).structuredContent as { items: { address: string }[] };
    expect(wallets.items.map((w) => w.address)).toContain(wallet.address);

    // A second use: the page says it is done, the approve route refuses.
    const again = await walletPage(adaPage, wallet);
    await again.page.goto(link.url);
    await again.page.getByText("Approved: done.").waitFor();
    const reused = await pagePost(again.page, link.confirmationId, "approve", tokenOf(link), { message: "x", signature: `0x${"11".repeat(65)}` });
    expect(reused).toMatchObject({ status: 409, body: { code: "confirmation_not_pending" } });
    await Promise.all([page.close(), again.page.close()]);
  });

  it("an approval REST refuses ends failed, with REST's code in the outcome (a wallet already linked to another person)", async () => {
    const wallet = chain.anvil.accounts[7]!;
    const bobId = (await ctx.owner<{ id: string }[]>`select id from core.users where email = 'bob@example.com'`)[0]!.id;
    await linkAddress(ctx.adminDb, { userId: bobId, address: wallet.address, chainId: String(chain.anvil.chainId), connector: "injected" });
    const link = await ask(ada, "request_wallet_link", { chainId: chain.anvil.chainId, address: wallet.address });
    const { page } = await walletPage(adaPage, wallet);
    await page.goto(link.url);
    await page.getByRole("button", { name: "Approve with wallet" }).click();
    await page.getByText("The approval was recorded but the action failed.").waitFor();
    expect(await status(ada, link.confirmationId)).toMatchObject({ status: "failed", outcome: { error: { code: "address_already_linked" }, httpStatus: 409 } });
    await page.close();
  });

  it("sponsorship settings: shows now and after, refuses the wrong wallet, approves with the sponsor's signature over the action's hash", async () => {
    const link = await ask(ada, "request_sponsorship_settings_change", {
      walletAddress: sponsor.address, chainId: chain.anvil.chainId, enabledOperations: ["check_in", "nft_mint"], maxCostPerTxWei: "5000000000000000", actorDailyCount: 3,
    });
    // The wrong wallet first (account #1, not the sponsor): refused before anything is used up.
    const wrong = await walletPage(adaPage, chain.anvil.accounts[1]!, 375);
    await wrong.page.goto(link.url);
    await wrong.page.getByRole("heading", { name: "Change a sponsor wallet's settings" }).waitFor();
    const changed = wrong.page.locator("tr.changed th");
    await expect.poll(() => changed.allInnerTexts()).toEqual(["Operations paid for", "Max cost per transaction", "Transactions per actor and day"]);
    await shoot(wrong.page, "sponsorship-settings");
    await wrong.page.getByRole("button", { name: "Approve with wallet" }).click();
    await wrong.page.getByText(`Sign with the wallet ${sponsor.address}`).waitFor();
    expect((await status(ada, link.confirmationId)).status).toBe("pending");
    await wrong.page.close();

    const { page, errors } = await walletPage(adaPage, sponsor);
    await page.goto(link.url);
    await page.getByRole("button", { name: "Approve with wallet" }).click();
    await page.getByText("Approved: done.").waitFor();
    expect(errors).toEqual([]);
    const settings = (await ada.callTool({ name: "get_sponsorship_settings", arguments: { walletAddress: sponsor.address, chainId: chain.anvil.chainId } }))
      .structuredContent;
    expect(settings).toMatchObject({ enabledOperations: ["check_in", "nft_mint"], maxCostPerTxWei: "5000000000000000", actorDailyCount: 3 });
    expect(await status(ada, link.confirmationId)).toMatchObject({ status: "approved", outcome: { result: { actorDailyCount: 3 } } });
    await page.close();
  });

  it("sponsored deposit: approving sends exactly the amount from the sponsor to the vault, recorded as a deposit", async () => {
    const vault = chain.anvil.accounts[9]!.address;
    const vaultBefore = await chain.publicClient.getBalance({ address: vault });
    const link = await ask(ada, "request_sponsored_deposit", { walletAddress: sponsor.address, chainId: chain.anvil.chainId, amountWei: "1500000000000000000" });
    expect(link.action).toEqual({ walletAddress: sponsor.address, chainId: chain.anvil.chainId, amountWei: "1500000000000000000", vaultAddress: vault });
    expect(await chain.publicClient.getBalance({ address: vault }), "nothing moved yet").toBe(vaultBefore);
    const { page, errors } = await walletPage(adaPage, sponsor);
    await page.goto(link.url);
    await page.getByRole("heading", { name: "Deposit into a sponsor wallet's balance" }).waitFor();
    const rows = await page.locator("#rows").innerText();
    expect(rows).toContain(vault);
    expect(rows).toContain("1500000000000000000 wei (1.5 ETH)");
    await shoot(page, "deposit");
    await page.getByRole("button", { name: "Approve with wallet" }).click();
    await page.getByText("Approved: done.").waitFor();
    expect(errors).toEqual([]);
    expect(await chain.publicClient.getBalance({ address: vault })).toBe(vaultBefore + 1_500_000_000_000_000_000n);
    const polled = await status(ada, link.confirmationId);
    expect(polled).toMatchObject({ status: "approved", outcome: { result: { amountWei: "1500000000000000000", fromAddress: sponsor.address } } });
    const balance = (await ada.callTool({ name: "get_sponsorship_balance", arguments: { walletAddress: sponsor.address, chainId: chain.anvil.chainId } }))
      .structuredContent;
    expect(balance).toMatchObject({ depositedWei: "1500000000000000000" });
    await page.close();
  });

  it("refuse: nothing changes and the status is refused", async () => {
    const link = await ask(ada, "request_sponsorship_settings_change", { walletAddress: sponsor.address, chainId: chain.anvil.chainId });
    const { page } = await walletPage(adaPage, sponsor, 375);
    await page.goto(link.url);
    await page.getByRole("button", { name: "Refuse" }).click();
    await page.getByText("You refused this request. Nothing was changed.").waitFor();
    await shoot(page, "refused");
    expect(await status(ada, link.confirmationId)).toMatchObject({ status: "refused", outcome: { refused: true } });
    const settings = (await ada.callTool({ name: "get_sponsorship_settings", arguments: { walletAddress: sponsor.address, chainId: chain.anvil.chainId } }))
      .structuredContent;
    expect(settings).toMatchObject({ enabledOperations: ["check_in", "nft_mint"] });
    expect(await pagePost(page, link.confirmationId, "prepare", tokenOf(link), { address: sponsor.address }))
      .toMatchObject({ status: 409, body: { code: "confirmation_not_pending", details: { status: "refused" } } });
    await page.close();
  });

  it("an expired link is refused", async () => {
    const link = await ask(ada, "request_wallet_link", { chainId: chain.anvil.chainId });
    // Time passes: the expiry moves to the past (and the row's keyed binding with it, as if it had been made so).
    const [row] = await ctx.owner`select user_id, client_id, grant_id, kind, action_hash, token_hash from mcp_confirmations.confirmations where id = ${link.confirmationId}`;
    const expiresAt = new Date(Date.now() - 1000);
    const binding = bindingOf(ctx.config, { userId: row!.user_id, clientId: row!.client_id, grantId: row!.grant_id, kind: row!.kind,
      actionHash: row!.action_hash, tokenHash: row!.token_hash, expiresAt });
    await ctx.owner`update mcp_confirmations.confirmations set created_at = now() - interval '20 minutes', expires_at = ${expiresAt}, binding = ${binding}
      where id = ${link.confirmationId}`;
    const { page } = await walletPage(adaPage, chain.anvil.accounts[3]!);
    await page.goto(link.url);
    await page.getByText("This link has expired. Ask your assistant for a new one.").waitFor();
    await shoot(page, "expired");
    expect(await pagePost(page, link.confirmationId, "refuse", tokenOf(link))).toMatchObject({ status: 409, body: { details: { status: "expired" } } });
    expect((await status(ada, link.confirmationId)).status).toBe("expired");
    await page.close();
  });

  it("an approval whose process died shows as interrupted once its lease ran out, with what to do", async () => {
    const link = await ask(ada, "request_sponsored_deposit", { walletAddress: sponsor.address, chainId: chain.anvil.chainId, amountWei: "1000" });
    // The page's approval claimed the link (begin_approval as Ada), then its process died 3 minutes (the lease) ago.
    await ctx.owner.begin(async (tx) => {
      await tx`select set_config('request.jwt.claims', ${JSON.stringify({ role: "authenticated", app_user_id: adaId })}, true)`;
      await tx`select * from mcp_confirmations.begin_approval(${link.confirmationId}, ${sha256(tokenOf(link))})`;
    });
    await ctx.owner`update mcp_confirmations.confirmations set claimed_at = now() - interval '3 minutes' where id = ${link.confirmationId}`;
    const { page, errors } = await walletPage(adaPage, sponsor);
    await page.goto(link.url);
    await page.getByText("The approval did not finish.").waitFor();
    expect(await page.locator("#done-detail").innerText()).toMatch(/deposit transaction may have been sent.*deposits\/record/);
    await shoot(page, "interrupted");
    expect(errors).toEqual([]);
    expect(await status(ada, link.confirmationId)).toMatchObject({ status: "failed", outcome: { error: { code: "approval_interrupted" } } });
    await page.close();
  });

  it("another person's session cannot see or approve the link", async () => {
    const link = await ask(ada, "request_wallet_link", { chainId: chain.anvil.chainId });
    const bobs = await browser.newContext();
    const { page } = await walletPage(bobs, chain.anvil.accounts[4]!);
    await page.goto(link.url);
    await signInFromLink(bobs, page, "bob@example.com");
    await page.getByText("This link was made for another account; you are signed in as bob@example.com.").waitFor();
    expect(await page.locator("#rows").innerText()).toBe("");
    const prepared = await pagePost(page, link.confirmationId, "prepare", tokenOf(link), { address: chain.anvil.accounts[4]!.address });
    expect(prepared).toMatchObject({ status: 403, body: { code: "confirmation_of_another_user" } });
    expect(await pagePost(page, link.confirmationId, "refuse", tokenOf(link))).toMatchObject({ status: 403 });
    expect((await status(ada, link.confirmationId)).status).toBe("pending");
    await bobs.close();
  });

  it("a link is bound to its exact action and id: a tampered action or another id is refused", async () => {
    const wallet = chain.anvil.accounts[5]!;
    const link = await ask(ada, "request_wallet_link", { chainId: chain.anvil.chainId, address: wallet.address });
    const other = await ask(ada, "request_wallet_link", { chainId: chain.anvil.chainId });
    // The token of one link with the other's id.
    const { page } = await walletPage(adaPage, wallet);
    await page.goto(`${root}/confirm/${other.confirmationId}#token=${tokenOf(link)}`);
    await page.getByText("No such confirmation link.").waitFor();
    expect((await status(ada, other.confirmationId)).status).toBe("pending");

    // The stored action changed behind the service's back (another wallet to link).
    await ctx.owner`update mcp_confirmations.confirmations set action = jsonb_set(action, '{address}', ${JSON.stringify(chain.anvil.accounts[6]!.address)}::jsonb)
      where id = ${link.confirmationId}`;
    await page.goto(link.url);
    await page.getByText("This link's stored action no longer matches what the assistant asked for; it cannot be approved.").waitFor();
    await shoot(page, "tampered");
    const message = `${root.slice(7)} wants you to sign in with your Ethereum account:\n${wallet.address}`;
    const signature = await wallet.signMessage({ message });
    expect(await pagePost(page, link.confirmationId, "approve", tokenOf(link), { message, signature }))
      .toMatchObject({ status: 409, body: { code: "confirmation_tampered" } });
    expect((await status(ada, link.confirmationId)).status).toBe("pending");
    await page.close();
  });
});
