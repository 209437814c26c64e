// Secrets the service must be able to read back (a checkout's client secret, for the idempotent
// replay; webhook signing secrets, for the dispatcher) are stored encrypted with a server key:
// AES-256-GCM through Web Crypto, so the same code runs under Deno and Node. What is only ever
// compared (API keys, client secrets on read) is stored as a SHA-256 instead.
//
// Layout of a box: version (1 byte, 1) ‖ IV (12 random bytes) ‖ ciphertext with its 16-byte tag.
// `associated` binds a box to where it is stored (for example the session id), so a box copied to
// another row does not open.

const VERSION = 1;
const IV_BYTES = 12;

export class SecretBox {
  private constructor(private readonly key: CryptoKey) {}

  /** From the 32-byte key, base64-encoded (SECRETS_ENCRYPTION_KEY). */
  static async fromBase64(keyBase64: string): Promise<SecretBox> {
    const raw = Uint8Array.from(atob(keyBase64), (c) => c.charCodeAt(0));
    if (raw.length !== 32) throw new Error("the encryption key must be 32 bytes, base64-encoded");
    return new SecretBox(await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
  }

  async seal(plaintext: string, associated: string): Promise<Uint8Array> {
    const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
    const sealed = new Uint8Array(await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(associated) },
      this.key,
      new TextEncoder().encode(plaintext),
    ));
    const box = new Uint8Array(1 + IV_BYTES + sealed.length);
    box[0] = VERSION;
    box.set(iv, 1);
    box.set(sealed, 1 + IV_BYTES);
    return box;
  }

  /** Throws when the box was not sealed by this key for `associated`, or was altered. */
  async open(box: Uint8Array, associated: string): Promise<string> {
    if (box[0] !== VERSION || box.length < 1 + IV_BYTES + 16) throw new Error("not a secret box of this service");
    const bytes = new Uint8Array(box); // a copy on its own ArrayBuffer, as Web Crypto wants
    const plaintext = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.subarray(1, 1 + IV_BYTES), additionalData: new TextEncoder().encode(associated) },
      this.key,
      bytes.subarray(1 + IV_BYTES),
    );
    return new TextDecoder().decode(plaintext);
  }
}
