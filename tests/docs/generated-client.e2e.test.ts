// A client generated from the served OpenAPI document with openapi-typescript (default options)
// accepts every documented example request body and the integrator quickstart
// (docs/snippets/integrator-quickstart.ts, written with openapi-fetch) as written, under strict
// TypeScript; its answer types keep the fields the service always sends required; and the
// quickstart does what it says against the real gateway.
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import openapiTS, { astToString, type OpenAPI3 } from "openapi-typescript";
import ts from "typescript";
import { type HDAccount, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkAddress } from "../../scripts/lib/admin-operations.ts";
import { deployCollection } from "../../scripts/lib/contracts.ts";
import { startGatewayProcess, type GatewayProcess } from "../../scripts/lib/gateway-process.ts";
import { schemasReachedBy } from "../../supabase/functions/api/docs/request-defaults.ts";
import { codeBlocks } from "./markdown.ts";
import { generateTicketSigningKey } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { startChain } from "../chain/chain-fixtures.ts";
import { createTestContext, TEST_JWT_SECRET, type TestContext, type UserWithKey } from "../setup/test-context.ts";

const ROOT = join(import.meta.dirname, "../..");
const QUICKSTART = join(ROOT, "docs/snippets/integrator-quickstart.ts");
const VAULT = "0x0000000000000000000000000000000000000a17";

type Json = Record<string, any>;
let chain: Awaited<ReturnType<typeof startChain>>;
let t: TestContext;
let gateway: GatewayProcess;
let dir: string;
let document: Json;

beforeAll(async () => {
  chain = await startChain();
  const env = {
    EVM_CHAINS: JSON.stringify([{ chainId: chain.anvil.chainId, rpcUrl: chain.anvil.rpcUrl, confirmations: 1, sponsorshipVault: VAULT }]),
    TICKET_SIGNING_KEYS: await generateTicketSigningKey("quickstart"),
  };
  t = await createTestContext(env);
  gateway = await startGatewayProcess({ DATABASE_URL: t.url, JWT_SECRET: TEST_JWT_SECRET, ...env }, 60_000);
  document = await (await fetch(`${gateway.url}/api/v3/openapi`)).json();
  // The generated types, the files to check, and node_modules for `openapi-fetch`, as in an integrator's project.
  dir = mkdtempSync(join(tmpdir(), "generated-client-"));
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  writeFileSync(join(dir, "api.d.ts"), astToString(await openapiTS(structuredClone(document) as OpenAPI3)));
  copyFileSync(QUICKSTART, join(dir, "integrator-quickstart.ts"));
}, 180_000);
afterAll(async () => {
  await gateway?.stop("SIGKILL");
  await t?.close();
  await chain?.anvil.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Strict TypeScript, the way an integrator's project compiles; every diagnostic as "file:line message". */
function typeErrors(files: string[]): string[] {
  const program = ts.createProgram(files.map((file) => join(dir, file)), {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    types: [],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!diagnostic.file || diagnostic.start === undefined) return message;
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${diagnostic.file.fileName.slice(dir.length + 1)}:${line + 1} ${message}`;
  });
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const schemaNamed = (ref: unknown) => typeof ref === "string" ? document.components?.schemas?.[ref.split("/").pop()!] : undefined;

/** Every example request body the document gives: the media type's `example`/`examples` and its schema's. */
function documentedExamples(): Array<{ path: string; method: string; value: unknown }> {
  const found: Array<{ path: string; method: string; value: unknown }> = [];
  for (const [path, item] of Object.entries<Json>(document.paths)) {
    for (const method of METHODS) {
      const media = item[method]?.requestBody?.content?.["application/json"];
      if (!media) continue;
      const schema = schemaNamed(media.schema?.$ref) ?? media.schema ?? {};
      const values = [
        ...("example" in media ? [media.example] : []),
        ...Object.values<Json>(media.examples ?? {}).map((example) => example.value),
        ...("example" in schema ? [schema.example] : []),
        ...(schema.examples ?? []),
      ];
      for (const value of values) found.push({ path, method, value });
    }
  }
  return found;
}

/**
 * The properties with a `default` in the schemas answers reach (responses, webhooks): the service
 * always sends them, and openapi-typescript types a defaulted property as present.
 */
function defaultedAnswerFields(): Array<{ schema: string; field: string }> {
  const answers = [Object.values<Json>(document.paths).flatMap((item) => METHODS.map((method) => item[method]?.responses)), document.webhooks];
  return [...schemasReachedBy(answers, document.components.schemas)].flatMap((schema) =>
    Object.entries<Json>(document.components.schemas[schema].properties ?? {})
      .filter(([, property]) => "default" in property)
      .map(([field]) => ({ schema, field })));
}

describe("a client generated with openapi-typescript from the served document", () => {
  it("is what the command in docs/generated-clients.md generates", { timeout: 60_000 }, async () => {
    const command = codeBlocks("docs/generated-clients.md").flatMap((block) => block.code.split("\n"))
      .map((line) => /^npx openapi-typescript (\S+) -o (\S+)$/.exec(line)).find((match) => match !== null);
    const [, url = "", output = ""] = command ?? [];
    expect(url).toBe("http://127.0.0.1:54321/api/v3/openapi"); // npm start's address; the test's gateway stands in for it
    await promisify(execFile)(join(ROOT, "node_modules/.bin/openapi-typescript"), [url.replace("http://127.0.0.1:54321", gateway.url), "-o", `cli-${output}`], { cwd: dir });
    const banner = /^\/\*\*[\s\S]*?\*\/\n\n/; // the CLI's "auto-generated" comment
    expect(readFileSync(join(dir, `cli-${output}`), "utf8").replace(banner, "")).toBe(readFileSync(join(dir, "api.d.ts"), "utf8"));
  });

  it("states a request field's default in its description, not in a `default` that would make it required", () => {
    const requestBodies = Object.values<Json>(document.paths).flatMap((item) => METHODS.map((method) => item[method]?.requestBody));
    for (const name of schemasReachedBy(requestBodies, document.components.schemas)) {
      const { properties = {}, required = [] } = document.components.schemas[name];
      for (const [field, property] of Object.entries<Json>(properties)) {
        if (!required.includes(field)) expect(property, `${name}.${field}`).not.toHaveProperty("default");
      }
    }
    const { CreateEvent, CheckInScanRequest } = document.components.schemas;
    expect(CreateEvent.properties.visibility.description).toMatch(/Default: `"public"`\.$/);
    expect(CreateEvent.properties.accessRules.description).toMatch(/Default: `\[\]`\.$/);
    expect(CheckInScanRequest.properties.direction.description).toMatch(/Default: `"entry"`\.$/);
  });

  it("types every documented example request body as valid", () => {
    const examples = documentedExamples();
    expect(examples.length).toBeGreaterThan(0);
    const lines = [
      'import type { paths } from "./api";',
      "type JsonBody<P extends keyof paths, M extends keyof paths[P]> =",
      '  paths[P][M] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;',
      ...examples.map(({ path, method, value }, index) =>
        `export const example${index}: JsonBody<${JSON.stringify(path)}, ${JSON.stringify(method)}> = ${JSON.stringify(value)};`),
    ];
    writeFileSync(join(dir, "examples.ts"), lines.join("\n") + "\n");
    expect(typeErrors(["examples.ts"])).toEqual([]);
  });

  it("keeps the defaulted fields of answers required", () => {
    const fields = defaultedAnswerFields();
    // An event's access rules answer with minBalance whether or not the request gave it.
    expect(fields).toContainEqual({ schema: "NftAccessRule", field: "minBalance" });
    const lines = [
      'import type { components } from "./api";',
      "type RequiredKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];",
      ...fields.map(({ schema, field }, index) =>
        `export const sent${index}: RequiredKeys<components["schemas"][${JSON.stringify(schema)}]> = ${JSON.stringify(field)};`),
    ];
    writeFileSync(join(dir, "answers.ts"), lines.join("\n") + "\n");
    expect(typeErrors(["answers.ts"])).toEqual([]);
  });

  it("type-checks the integrator quickstart (openapi-fetch) under strict TypeScript", () => {
    expect(typeErrors(["integrator-quickstart.ts"])).toEqual([]);
  });

  it("runs the integrator quickstart against the gateway: event, reservation, ticket, scan, checkout, sponsorship check", { timeout: 60_000 }, async () => {
    const [deployer, organizerWallet, actor] = [0, 1, 2].map((index) => chain.anvil.accounts[index]!) as [HDAccount, HDAccount, HDAccount];
    const chainId = chain.anvil.chainId;
    const organizer: UserWithKey = await t.userWithKey(["checkout:create"]);
    const attendee: UserWithKey = await t.userWithKey();
    await linkAddress(t.adminDb, { userId: organizer.id, address: organizerWallet.address, chainId: String(chainId), connector: "injected" });

    // What the quickstart starts from: a registered collection and a sponsor wallet with a deposit.
    const address = await deployCollection(chain.wallet(deployer), {
      name: "Tickets", symbol: "TIX", owner: organizerWallet.address, pricing: "dynamic", priceSigner: organizerWallet.address,
    });
    const post = async (path: string, json: unknown) => {
      const response = await fetch(`${gateway.url}${path}`, {
        method: "POST", headers: { "x-api-key": organizer.key, "content-type": "application/json" }, body: JSON.stringify(json),
      });
      const body = await response.json();
      if (response.status !== 201) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
      return body;
    };
    const collection = await post("/api/v3/nft-collection", { chainId, address, pricing: "dynamic" });
    const depositHash = await chain.wallet(organizerWallet).sendTransaction({ to: VAULT, value: parseEther("1") });
    await chain.publicClient.waitForTransactionReceipt({ hash: depositHash });
    await post("/api/v3/sponsorship/deposits/record", { walletAddress: organizerWallet.address, chainId, txHash: depositHash });

    const { runQuickstart } = await import(pathToFileURL(QUICKSTART).href);
    const answers = await runQuickstart({
      baseUrl: gateway.url,
      organizerKey: organizer.key,
      attendeeKey: attendee.key,
      collectionId: collection.id,
      sponsorship: {
        walletAddress: organizerWallet.address, chainId, clientId: "quickstart-client",
        targetAddress: address, callData: "0x3ccfd60b", actorAddress: actor.address,
      },
    });

    expect(answers.event).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{24}$/), visibility: "public", accessRules: 0 });
    expect(answers.reservation).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{24}$/), status: "approved" });
    expect(answers.scan).toEqual({ result: "admitted", admitted: true, direction: "entry" });
    expect(answers.checkout).toMatchObject({ id: expect.stringMatching(/^[0-9a-f]{24}$/), status: "PENDING" });
    expect(answers.checkout.checkoutUrl).toContain(answers.checkout.id);
    expect(answers.sponsorship).toMatchObject({ eligible: true, reason: "eligible", reservationId: expect.stringMatching(/^[0-9a-f]{24}$/) });
  });
});
