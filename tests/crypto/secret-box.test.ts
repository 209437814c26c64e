// Secrets sealed with the server key open only with that key, for the row they were sealed for, unaltered.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PRODUCTION_REQUIREMENTS } from "../setup/test-context.ts";
import { DEVELOPMENT_ENCRYPTION_KEY, loadConfig } from "../../supabase/functions/_shared/config.ts";
import { SecretBox } from "../../supabase/functions/_shared/crypto/secret-box.ts";

const newKey = () => randomBytes(32).toString("base64");

describe("SecretBox", () => {
  it("opens what it sealed, and each seal is different (random IV)", async () => {
    const box = await SecretBox.fromBase64(newKey());
    const a = box.seal("cs_secret", "session-1");
    const b = box.seal("cs_secret", "session-1");
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    expect(box.open(a, "session-1")).toBe("cs_secret");
    expect(Buffer.from(a).includes(Buffer.from("cs_secret"))).toBe(false);
  });

  it("refuses another key, another row and any altered byte", async () => {
    const box = await SecretBox.fromBase64(newKey());
    const sealed = box.seal("whsec_x", "owner:https://shop.example/hook");
    const otherKey = await SecretBox.fromBase64(newKey());
    expect(() => otherKey.open(sealed, "owner:https://shop.example/hook")).toThrow();
    expect(() => box.open(sealed, "owner:https://other.example/hook")).toThrow();
    const altered = new Uint8Array(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(() => box.open(altered, "owner:https://shop.example/hook")).toThrow();
  });

  it("takes only a 32-byte key; production refuses to run without one, development has a published one", async () => {
    await expect(SecretBox.fromBase64(randomBytes(16).toString("base64"))).rejects.toThrow(/32 bytes/);
    expect(await SecretBox.fromBase64(DEVELOPMENT_ENCRYPTION_KEY)).toBeInstanceOf(SecretBox);
    const base = { GATEWAY_DATABASE_URL: "postgres://localhost/x" };
    expect(() => loadConfig({ ...base, ...PRODUCTION_REQUIREMENTS, APP_ENV: "production" })).toThrow(/SECRETS_ENCRYPTION_KEY/);
    expect(loadConfig({ ...base, ...PRODUCTION_REQUIREMENTS, APP_ENV: "production", SECRETS_ENCRYPTION_KEY: newKey() }).APP_ENV).toBe("production");
  });

  it("EVM_CHAINS is a validated JSON list", () => {
    const base = { GATEWAY_DATABASE_URL: "postgres://localhost/x" };
    expect(loadConfig({ ...base, EVM_CHAINS: '[{"chainId":31337,"rpcUrl":"http://127.0.0.1:8545"}]' }).EVM_CHAINS)
      .toEqual([{ chainId: 31337, rpcUrl: "http://127.0.0.1:8545", confirmations: 1, extraEntryPoints: [] }]);
    expect(() => loadConfig({ ...base, EVM_CHAINS: "not json" })).toThrow(/EVM_CHAINS/);
    expect(() => loadConfig({ ...base, EVM_CHAINS: '[{"chainId":-1,"rpcUrl":"x"}]' })).toThrow(/EVM_CHAINS/);
  });
});
