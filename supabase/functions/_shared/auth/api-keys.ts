import { createHash, randomBytes } from "node:crypto";
import { RecentEntries } from "./recent-entries.ts";

// sk_<8 lowercase alphanumerics>_<43 base64url characters: 256 random bits>
const KEY_PATTERN = /^sk_[a-z0-9]{8}_[A-Za-z0-9_-]{20,64}$/;
const PREFIX_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";

export interface NewApiKey {
  /** Shown once to its owner; never stored. */
  plaintext: string;
  /** The visible part, stored and listed, e.g. `sk_3k9dh2a1`. */
  prefix: string;
  /** SHA-256 of the plaintext: what the database stores and looks up. */
  hash: Buffer;
}

export function generateApiKey(): NewApiKey {
  const prefix = "sk_" + Array.from(randomBytes(8), (b) => PREFIX_ALPHABET[b % PREFIX_ALPHABET.length]).join("");
  const plaintext = `${prefix}_${randomBytes(32).toString("base64url")}`;
  return { plaintext, prefix, hash: hashApiKey(plaintext) };
}

/**
 * Keys carry 256 random bits, so a fast hash is enough (no salt or stretching needed), and looking
 * the hash up by equality leaks nothing useful through timing.
 */
export function hashApiKey(plaintext: string): Buffer {
  return createHash("sha256").update(plaintext, "utf8").digest();
}

export function looksLikeApiKey(value: string): boolean {
  return KEY_PATTERN.test(value);
}

/**
 * Keys the database accepted in the last minute, with their owner. A key not in it is checked (one
 * cheap round trip) before the request is parsed or validated, so a made-up key buys no work; a key
 * in it skips that trip and is checked, as always, inside the request's own transaction. A revoked
 * key is refused there and forgotten here, so it costs at most one validated request. The owner of a
 * key never changes, so handlers may use it before their first statement (ApiKeyScope.ownerId); nor
 * do its permissions, so one the database has checked need not be checked again up front
 * (requirePermission), only, as always, in the transaction.
 */
export class AcceptedKeyCache {
  private readonly entries: RecentEntries<{ ownerId: string; permissions: Set<string> }>;

  constructor(ttlMs = 60_000, maxEntries = 10_000) {
    this.entries = new RecentEntries(ttlMs, maxEntries);
  }

  /** The key's owner, when the database accepted the key lately. */
  ownerOf(keyHash: Uint8Array, now = Date.now()): string | undefined {
    return this.entries.get(idOf(keyHash), now)?.ownerId;
  }

  /** Whether the database accepted the key lately with `permission` ("resource:action") required. */
  grants(keyHash: Uint8Array, permission: string, now = Date.now()): boolean {
    return this.entries.get(idOf(keyHash), now)?.permissions.has(permission) ?? false;
  }

  /** The database accepted the key, requiring `permissions` of it. */
  accept(keyHash: Uint8Array, ownerId: string, permissions: string[], now = Date.now()): void {
    const id = idOf(keyHash);
    const proven = new Set([...(this.entries.get(id, now)?.permissions ?? []), ...permissions]);
    this.entries.set(id, { ownerId, permissions: proven }, now);
  }

  forget(keyHash: Uint8Array): void {
    this.entries.delete(idOf(keyHash));
  }
}

const idOf = (keyHash: Uint8Array) => Buffer.from(keyHash).toString("base64");
