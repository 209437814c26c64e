// POST /api/v3/crypto/sui/collection/publish through the app against the stand-in node: the
// organiser must be linked, a clientReference publishes once (retries, lost answers and concurrent
// twins included), a refused execution leaves a failed record, and the records read back.
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linkAddress } from "../../scripts/lib/admin-operations.ts";
import { connectClient, inProcessFetch } from "../mcp/mcp-fixtures.ts";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { randomAddress, type Sui, startSui } from "./sui-fixtures.ts";

let sui: Sui;
let t: TestContext;
let user: UserWithKey;
let organiser: string;

beforeAll(async () => {
  sui = await startSui();
  sui.node.fund(sui.signer.address, 100_000_000_000n);
  t = await createTestContext({
    SUI_NETWORKS: JSON.stringify([{ network: sui.network.network, grpcUrl: sui.network.grpcUrl, packageId: sui.packageId }]),
    SUI_PRIVATE_KEY: sui.serviceKey.getSecretKey(),
  });
  user = await t.userWithKey(["collections:publish"]);
  organiser = new Ed25519Keypair().toSuiAddress();
  await linkAddress(t.adminDb, { userId: user.id, address: organiser, chainId: "sui:localnet", connector: "sui-wallet" });
});
afterAll(async () => {
  await t?.close();
  await sui?.node.close();
});

let references = 0;
const body = (overrides: Record<string, unknown> = {}) => ({
  network: "sui:localnet",
  clientReference: `ref-${++references}`,
  name: "Sui Builders Night",
  description: "Passes for the night",
  imageUrl: "https://example.com/pass.png",
  projectUrl: "https://example.com",
  maxSupply: 300,
  transferable: false,
  organiserAddress: organiser,
  ...overrides,
});
const publish = (json: unknown, key = user.key) => t.call("/api/v3/crypto/sui/collection/publish", { method: "POST", key, json });
const collections = () => sui.node.objectsOfType(`${sui.packageId}::collection::Collection`);
const executions = () => sui.node.requests.filter((method) => method === "ExecuteTransaction").length;

describe("publishing", () => {
  it("publishes: the collection shared, the capability the organiser's, the record complete and readable", async () => {
    const request = body();
    const response = await publish(request);
    expect(response.status, await response.clone().text()).toBe(201);
    const record = await response.json();
    expect(record).toMatchObject({
      clientReference: request.clientReference, network: "sui:localnet", packageId: sui.packageId, organiserAddress: organiser,
      name: "Sui Builders Night", maxSupply: 300, transferable: false, status: "published", failure: null,
      passType: `${sui.packageId}::collection::EventPass`, digest: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/),
    });
    expect(sui.node.ledger.objects.get(record.collectionObjectId)).toMatchObject({ owner: { sharedSince: expect.any(BigInt) } });
    expect(sui.node.ownedBy(organiser, `${sui.packageId}::collection::CollectionCap`).map((o) => o.id)).toEqual([record.capObjectId]);

    expect(await (await t.call(`/api/v3/crypto/sui/collection/${record.id}`, { key: user.key })).json()).toEqual(record);
    const listed = await (await t.call("/api/v3/crypto/sui/collection", { key: user.key })).json();
    expect(listed.items.map((item: { id: string }) => item.id)).toContain(record.id);
    const stranger = await t.userWithKey();
    await expectErrorBody(await t.call(`/api/v3/crypto/sui/collection/${record.id}`, { key: stranger.key }), 404, "not_found");
  });

  it("answers a retry with the same record (200) without executing again; another body with the reference is 409", async () => {
    const request = body();
    const first = await (await publish(request)).json();
    const [created, executed] = [collections().length, executions()];
    const again = await publish(request);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual(first);
    expect([collections().length, executions()]).toEqual([created, executed]);
    await expectErrorBody(await publish({ ...request, name: "Another name" }), 409, "client_reference_reused");
  });

  it("executes the stored transaction again after a lost answer: one collection, the same digest", async () => {
    const request = body();
    const created = collections().length;
    sui.node.failNext({ kind: "lost_response" });
    const answer = await publish(request);
    expect(answer.headers.get("retry-after")).toBe("5");
    const lost = await expectErrorBody(answer, 503, "sui_unavailable");
    expect(lost.message).toContain("Retry with the same request");
    const [pending] = await t.owner<{ status: string; digest: string }[]>`
      select status, digest from sui.collections where client_reference = ${request.clientReference}`;
    expect(pending).toMatchObject({ status: "pending", digest: expect.any(String) });
    expect(collections().length).toBe(created + 1); // it did run on the chain

    const retried = await publish(request);
    expect(retried.status).toBe(201);
    expect(await retried.json()).toMatchObject({ status: "published", digest: pending!.digest });
    expect(collections().length).toBe(created + 1);
  });

  it("never pays with the gas coin of a stored transaction not yet executed, which then still executes", async () => {
    sui.node.fund(sui.signer.address, 100_000_000_000n); // a second coin
    const stalled = body();
    sui.node.failNext({ kind: "transport", method: "ExecuteTransaction" });
    await expectErrorBody(await publish(stalled), 503, "sui_unavailable");
    const other = body();
    expect((await publish(other)).status).toBe(201);
    const coins = await t.owner<{ client_reference: string; gas_coin: string }[]>`
      select client_reference, gas_coin from sui.collections where client_reference in (${stalled.clientReference}, ${other.clientReference})`;
    expect(new Set(coins.map((row) => row.gas_coin)).size).toBe(2);
    expect((await publish(stalled)).status).toBe(201);
  });

  it("publishes once for concurrent twins, all answered with the one record", async () => {
    const request = body();
    const created = collections().length;
    const answers = await Promise.all(Array.from({ length: 5 }, () => publish(request)));
    const records = await Promise.all(answers.map((answer) => answer.json()));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 201]);
    expect(new Set(records.map((record) => record.digest)).size).toBe(1);
    expect(collections().length).toBe(created + 1);
  });

  it("records a refused execution as failed with its reason (422), and a retry does not execute again", async () => {
    const request = body();
    sui.node.failNext({ kind: "abort", abortCode: 2n });
    const failed = await expectErrorBody(await publish(request), 422, "sui_execution_failed");
    expect(failed.details.collection).toMatchObject({ status: "failed", failure: { code: "move_abort", reason: expect.any(String) }, collectionObjectId: null });
    const executed = executions();
    await expectErrorBody(await publish(request), 422, "sui_execution_failed");
    expect(executions()).toBe(executed);
    const read = await (await t.call(`/api/v3/crypto/sui/collection/${failed.details.collection.id}`, { key: user.key })).json();
    expect(read.status).toBe("failed");
  });

  it("answers 503 sui_unavailable when the node cannot be reached, leaving nothing signed", async () => {
    const request = body();
    sui.node.failNext({ kind: "transport" });
    await expectErrorBody(await publish(request), 503, "sui_unavailable");
    const [row] = await t.owner<{ status: string; digest: string | null }[]>`
      select status, digest from sui.collections where client_reference = ${request.clientReference}`;
    expect(row).toEqual({ status: "pending", digest: null });
    expect((await publish(request)).status).toBe(201);
  });
});

describe("refusals", () => {
  it("refuses an organiser that is not one of the caller's linked Sui addresses on the network (403)", async () => {
    await expectErrorBody(await publish(body({ organiserAddress: randomAddress() })), 403, "sui_address_not_linked");
    const other = await t.userWithKey(["collections:publish"]);
    await expectErrorBody(await publish(body(), other.key), 403, "sui_address_not_linked");
  });

  it("needs the collections:publish permission", async () => {
    const plain = await t.userWithKey();
    await expectErrorBody(await publish(body(), plain.key), 403, "missing_permission");
  });

  it("answers 503 sui_not_configured for a network the service has no node for", async () => {
    await expectErrorBody(await publish(body({ network: "sui:mainnet" })), 503, "sui_not_configured");
  });

  it("validates the body (400)", async () => {
    for (const overrides of [
      { imageUrl: "http://example.com/pass.png" },
      { organiserAddress: "0x1234" },
      { network: "sui:moon" },
      { maxSupply: 0 },
      { clientReference: "spaces are not allowed" },
      { surprise: true },
    ]) {
      await expectErrorBody(await publish(body(overrides)), 400, "validation_failed");
    }
  });
});

describe("the backend MCP tools", () => {
  it("publish through the same operation (idempotent per clientReference) and read the records", async () => {
    const client = await connectClient("http://localhost/mcp/backend", { headers: { "x-api-key": user.key }, fetch: inProcessFetch(t.app) });
    try {
      const request = body();
      const published = await client.callTool({ name: "publish_sui_collection", arguments: request });
      expect(published.isError).toBeFalsy();
      const record = published.structuredContent as { id: string; status: string; digest: string };
      expect(record.status).toBe("published");
      const again = await client.callTool({ name: "publish_sui_collection", arguments: request });
      expect((again.structuredContent as { digest: string }).digest).toBe(record.digest);
      const read = await client.callTool({ name: "get_sui_collection", arguments: { collectionId: record.id } });
      expect(read.structuredContent).toMatchObject({ id: record.id, status: "published" });
      const listed = await client.callTool({ name: "list_sui_collections", arguments: {} });
      expect((listed.structuredContent as { items: { id: string }[] }).items.map((item) => item.id)).toContain(record.id);
      const refused = await client.callTool({ name: "publish_sui_collection", arguments: body({ organiserAddress: randomAddress() }) });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain("sui_address_not_linked");
    } finally {
      await client.close();
    }
  });
});
