// Issue 10 on the real Deno gateway (as `npm start` runs it), over HTTP: the SDK's MCP Client goes
// through discovery, a Client ID Metadata Document fetched by the gateway, the e-mail code sent by
// nodemailer under Deno to a local SMTP server, consent, tokens and a tool call on /mcp.
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/client";
import { startGatewayProcess, type GatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { createTestContext } from "../setup/test-context.ts";
import { authorizeInBrowser, Browser, type OAuthTestContext, startDocumentServer, startMailCatcher } from "./oauth-fixtures.ts";

const freePort = () => new Promise<number>((resolve) => {
  const server = createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address() as { port: number };
    server.close(() => resolve(port));
  });
});

let ctx: OAuthTestContext;
let gateway: GatewayProcess;
let documents: Awaited<ReturnType<typeof startDocumentServer>>;

beforeAll(async () => {
  const mail = await startMailCatcher();
  documents = await startDocumentServer();
  const port = await freePort();
  const root = `http://127.0.0.1:${port}`;
  const base = await createTestContext({ PUBLIC_API_ROOT: root });
  gateway = await startGatewayProcess({
    DATABASE_URL: base.url, PORT: String(port), PUBLIC_API_ROOT: root, SMTP_URL: mail.url, MAIL_FROM: "Events <no-reply@example.test>",
    WEBHOOK_DISPATCH: "false", CHECKOUT_RECONCILE_SECONDS: "0", RELAYER_LOOP_SECONDS: "0",
  });
  ctx = { ...base, mail, root, fetch: (input, init) => fetch(input, init), close: async () => { await base.close(); await mail.close(); } };
});
afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await documents?.close();
  await ctx?.close();
});

describe("public MCP OAuth on the Deno gateway", () => {
  it("connects the SDK client with a metadata-document client id and calls a tool", async () => {
    const clientId = `${documents.base}/client.json`;
    documents.documents.set("/client.json", JSON.stringify({ client_id: clientId, client_name: "E2E Client", redirect_uris: ["http://127.0.0.1/cb"] }));
    let authorizationUrl: URL | undefined;
    let verifier = "";
    let tokens: unknown;
    const provider: OAuthClientProvider = {
      redirectUrl: "http://127.0.0.1:61234/cb",
      clientMetadata: { client_name: "E2E Client", redirect_uris: ["http://127.0.0.1:61234/cb"] },
      clientInformation: () => ({ client_id: clientId }),
      tokens: () => tokens as never,
      saveTokens: (t) => { tokens = t; },
      redirectToAuthorization: (url) => { authorizationUrl = url; },
      saveCodeVerifier: (v) => { verifier = v; },
      codeVerifier: () => verifier,
    };
    const url = new URL(`${ctx.root}/mcp`);
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
    await expect(new Client({ name: "e2e", version: "1" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    const callback = await authorizeInBrowser(ctx, new Browser(ctx), authorizationUrl!.toString(), "deno@example.com", ["events:read"]);
    await first.finishAuth(callback.searchParams);
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(["get_event", "list_events"]);
    const result = await client.callTool({ name: "list_events", arguments: {} });
    expect(result.isError).toBeFalsy();
    await client.close();
    expect(gateway.output()).not.toMatch(/mcr_|mca_|mcs_/);
  });
});
