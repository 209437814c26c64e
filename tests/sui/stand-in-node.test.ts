// The stand-in node itself: both gRPC-web encodings, and a loud refusal of whatever it does not
// model, so a test never passes on an answer a real node would not give.
import { SuiGrpcClient } from "@mysten/sui/grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SuiNode, startSuiNode } from "../../scripts/lib/sui-node.ts";
import { randomAddress } from "./sui-fixtures.ts";

let node: SuiNode;
beforeAll(async () => {
  node = await startSuiNode({ packageId: randomAddress(), referenceGasPrice: 321n });
});
afterAll(() => node?.close());

describe("the stand-in Sui node", () => {
  it.each(["text", "binary"] as const)("speaks gRPC-web %s", async (format) => {
    const client = new SuiGrpcClient({ network: "localnet", baseUrl: node.url, format });
    await expect(client.getReferenceGasPrice()).resolves.toEqual({ referenceGasPrice: "321" });
    const owner = randomAddress();
    const coin = node.fund(owner, 5n);
    await expect(client.listCoins({ owner })).resolves.toMatchObject({ objects: [{ objectId: coin, balance: "5" }], hasNextPage: false });
  });

  it("refuses methods and read-mask fields it does not model", async () => {
    const client = new SuiGrpcClient({ network: "localnet", baseUrl: node.url });
    await expect(client.getChainIdentifier()).rejects.toMatchObject({ code: "UNIMPLEMENTED" });
    await expect(client.listOwnedObjects({ owner: randomAddress(), include: { json: true } })).rejects.toMatchObject({ code: "UNIMPLEMENTED" });
    await expect(client.getProtocolConfig()).rejects.toMatchObject({ code: "UNIMPLEMENTED" });
    expect(node.requests).toContain("GetServiceInfo");
  });

  it("refuses a page token of another query", async () => {
    const client = new SuiGrpcClient({ network: "localnet", baseUrl: node.url });
    const owner = randomAddress();
    node.fund(owner, 1n);
    node.fund(owner, 2n);
    const { cursor } = await client.listCoins({ owner, limit: 1 });
    expect(cursor).not.toBeNull();
    await expect(client.listCoins({ owner: randomAddress(), limit: 1, cursor })).rejects.toMatchObject({ code: "INVALID_ARGUMENT" });
  });
});
