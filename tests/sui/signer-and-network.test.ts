// The service's Sui key and network settings: what they accept, what they refuse, and that a
// refused key is never quoted back.
import { encodeSuiPrivateKey } from "@mysten/sui/cryptography";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { Secp256k1Keypair } from "@mysten/sui/keypairs/secp256k1";
import { verifyTransactionSignature } from "@mysten/sui/verify";
import { describe, expect, it } from "vitest";
import { suiNetworksSchema } from "../../supabase/functions/_shared/sui/network.ts";
import { suiPrivateKeySchema, suiSignerFor, suiSignerFromKey, useSuiSigner } from "../../supabase/functions/_shared/sui/signer.ts";

describe("the service's Sui signer", () => {
  it("signs as the address of its key", async () => {
    const keypair = new Ed25519Keypair();
    const signer = suiSignerFromKey(keypair.getSecretKey());
    expect(signer.address).toBe(keypair.toSuiAddress());
    const bytes = new Uint8Array([1, 2, 3]);
    const { signature } = await signer.signTransaction(bytes);
    await expect(verifyTransactionSignature(bytes, signature, { address: keypair.toSuiAddress() })).resolves.toBeTruthy();
    expect(Object.keys(signer).sort()).toEqual(["address", "signTransaction"]);
  });

  it("refuses what is not an Ed25519 suiprivkey, without quoting it", () => {
    const secp = new Secp256k1Keypair().getSecretKey();
    const truncated = new Ed25519Keypair().getSecretKey().slice(0, -3);
    for (const bad of [secp, truncated, "0x" + "11".repeat(32), ""]) {
      let message = "";
      try {
        suiSignerFromKey(bad);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/not a Sui Ed25519 private key/);
      if (bad) expect(message).not.toContain(bad.slice(12, 30));
      expect(suiPrivateKeySchema.safeParse(bad).success).toBe(false);
    }
    expect(suiPrivateKeySchema.safeParse(encodeSuiPrivateKey(new Uint8Array(32).fill(3), "ED25519")).success).toBe(true);
  });

  it("is read once per configuration and can be replaced (a KMS)", () => {
    const keypair = new Ed25519Keypair();
    const config = { SUI_PRIVATE_KEY: keypair.getSecretKey() };
    expect(suiSignerFor(config)).toBe(suiSignerFor(config));
    expect(suiSignerFor(config)!.address).toBe(keypair.toSuiAddress());
    expect(suiSignerFor({})).toBeNull();
    const remote = { address: "0x" + "ab".repeat(32), signTransaction: async () => ({ signature: "" }) };
    useSuiSigner(config, remote);
    expect(suiSignerFor(config)).toBe(remote);
  });
});

describe("SUI_NETWORKS entries", () => {
  const packageId = "0x" + "AB".repeat(32);

  it("normalises the package id and keeps the rest", () => {
    expect(suiNetworksSchema.parse([{ network: "sui:testnet", grpcUrl: "https://fullnode.testnet.sui.io:443", packageId }]))
      .toEqual([{ network: "sui:testnet", grpcUrl: "https://fullnode.testnet.sui.io:443", packageId: packageId.toLowerCase().replace("0X", "0x") }]);
  });

  it.each([
    ["an unknown network", { network: "sui:othernet", grpcUrl: "https://n.example", packageId }],
    ["a network without its namespace", { network: "testnet", grpcUrl: "https://n.example", packageId }],
    ["a non-URL", { network: "sui:testnet", grpcUrl: "fullnode", packageId }],
    ["a non-http URL", { network: "sui:testnet", grpcUrl: "ftp://n.example", packageId }],
    ["a short package id", { network: "sui:testnet", grpcUrl: "https://n.example", packageId: "0x2" }],
    ["an extra field", { network: "sui:testnet", grpcUrl: "https://n.example", packageId, rpcUrl: "https://n.example" }],
  ])("refuses %s", (_, entry) => {
    expect(suiNetworksSchema.safeParse([entry]).success).toBe(false);
  });

  it("refuses a network named twice", () => {
    const entry = { network: "sui:testnet", grpcUrl: "https://n.example", packageId };
    expect(suiNetworksSchema.safeParse([entry, entry]).success).toBe(false);
  });
});
