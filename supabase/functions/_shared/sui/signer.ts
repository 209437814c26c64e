// The service's own Sui key: it signs the transactions the service pays for (publishing a
// collection). Read once from SUI_PRIVATE_KEY (a `suiprivkey1...` Ed25519 key, the form
// `sui keytool export` prints) into a keypair; only the address and signTransaction leave this
// module, and the key is never logged nor put in an error. A KMS or remote signer implements
// SuiSigner and is installed with useSuiSigner(config, signer), as for the EVM relayer.
import { decodeSuiPrivateKey } from "@mysten/sui/cryptography";
import { Ed25519Keypair } from "@mysten/sui/keypairs/ed25519";
import { z } from "zod";

/** What the service needs of a Sui key: its address and a signature over transaction bytes. */
export interface SuiSigner {
  /** 0x + 64 hex, lower case. */
  readonly address: string;
  /** The serialized signature (flag || signature || public key, base64) over the TransactionData BCS. */
  signTransaction(bytes: Uint8Array): Promise<{ signature: string }>;
}

/** The part of the configuration this module reads. */
export interface SuiSignerConfig {
  readonly SUI_PRIVATE_KEY?: string;
}

/** A signer from a bech32 Ed25519 key; the key stays in the keypair's closure, never on the returned object. */
export function suiSignerFromKey(secret: string): SuiSigner {
  let keypair: Ed25519Keypair;
  try {
    const parsed = decodeSuiPrivateKey(secret.trim());
    if (parsed.scheme !== "ED25519") throw new Error("not Ed25519");
    keypair = Ed25519Keypair.fromSecretKey(parsed.secretKey);
  } catch {
    // The SDK's messages may quote the input: none of them is passed on.
    throw new Error("SUI_PRIVATE_KEY is not a Sui Ed25519 private key (suiprivkey1...)");
  }
  return Object.freeze({
    address: keypair.toSuiAddress(),
    signTransaction: async (bytes: Uint8Array) => ({ signature: (await keypair.signTransaction(bytes)).signature }),
  });
}

/** For the configuration: a key that suiSignerFromKey accepts (the issue never quotes the value). */
export const suiPrivateKeySchema = z.string().refine((value) => {
  try {
    suiSignerFromKey(value);
    return true;
  } catch {
    return false;
  }
}, "a Sui Ed25519 private key (suiprivkey1...)");

const signers = new WeakMap<SuiSignerConfig, SuiSigner | null>();

/** Installs `signer` (a KMS's, a test's) for the services built on `config`; null: none. */
export function useSuiSigner(config: SuiSignerConfig, signer: SuiSigner | null): void {
  signers.set(config, signer);
}

/** The configured signer (created once per configuration), or null without SUI_PRIVATE_KEY. */
export function suiSignerFor(config: SuiSignerConfig): SuiSigner | null {
  if (!signers.has(config)) signers.set(config, config.SUI_PRIVATE_KEY ? suiSignerFromKey(config.SUI_PRIVATE_KEY) : null);
  return signers.get(config)!;
}
