// Secrets the service must be able to read back (a checkout's client secret, for the idempotent
// replay; webhook signing secrets, for the dispatcher) are stored encrypted with a server key:
// AES-256-GCM. What is only ever compared (API keys, client secrets on read) is stored as a SHA-256.
//
// node:crypto (Deno has it too), synchronous: Web Crypto's async operations cost the gateway more
// per call than the encryption itself, and session creation seals two secrets per request.
//
// Layout of a box: version (1 byte, 1) ‖ IV (12 random bytes) ‖ ciphertext ‖ 16-byte tag.
// `associated` binds a box to where it is stored (for example the session), so a box copied to
// another row does not open.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** From the 32-byte key, base64-encoded (SECRETS_ENCRYPTION_KEY). Async, as key import may be. */
  static async fromBase64(keyBase64: string): Promise<SecretBox> {
    const key = Buffer.from(keyBase64, "base64");
    if (key.length !== 32) throw new Error("the encryption key must be 32 bytes, base64-encoded");
    return new SecretBox(key);
  }

  seal(plaintext: string, associated: string): Uint8Array {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv).setAAD(Buffer.from(associated, "utf8"));
    const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), iv, sealed, cipher.getAuthTag()]);
  }

  /** Throws when the box was not sealed by this key for `associated`, or was altered. */
  open(box: Uint8Array, associated: string): string {
    const bytes = Buffer.from(box);
    if (bytes[0] !== VERSION || bytes.length < 1 + IV_BYTES + TAG_BYTES) throw new Error("not a secret box of this service");
    const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(1, 1 + IV_BYTES))
      .setAAD(Buffer.from(associated, "utf8"))
      .setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8");
  }
}
