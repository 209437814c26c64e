// The public MCP endpoint on the real Deno gateway (as `npm start` runs it), over HTTP: the SDK's MCP Client goes
// through discovery, a Client ID Metadata Document fetched by the gateway, the e-mail code sent by
// nodemailer under Deno to a local SMTP server, consent, tokens and a tool call on /mcp.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport, UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/client";
import { type OAuthGateway, startOAuthGateway } from "./oauth-driver.ts";
import { authorizeInBrowser, Browser, startDocumentServer } from "./oauth-fixtures.ts";

let ctx: OAuthGateway;
let documents: Awaited<ReturnType<typeof startDocumentServer>>;

beforeAll(async () => {
  documents = await startDocumentServer();
  ctx = await startOAuthGateway();
});
afterAll(async () => {
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
    expect(ctx.gateway.output()).not.toMatch(/mcr_|mca_|mcs_/);
  });
});
