// SHA-256 of a text as bytes: how the service stores random secrets (client secrets, refresh
// tokens, codes; 256 random bits, so a plain hash is enough) and compares them.
import { createHash } from "node:crypto";

export const sha256 = (text: string): Uint8Array => new Uint8Array(createHash("sha256").update(text, "utf8").digest());
