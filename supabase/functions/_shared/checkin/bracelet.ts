// NFC bracelets: the UID a scanner reads, and the SUN messages of NTAG 424 DNA bracelets (NXP
// AN12196: encrypted PICCData mirroring the UID and read counter, and an SDMMAC over an empty input).
//
// node:crypto's AES (Deno has it too), synchronous: a SUN check is four AES calls, less than the
// cost of awaiting Web Crypto.
import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from "node:crypto";

const BLOCK = 16;
const ZERO_IV = new Uint8Array(BLOCK);
const UID_BYTE_LENGTHS = [4, 7, 10];
const SUN_UID_BYTES = 7;
const MAX_COUNTER = 0xffffff;

// PICCDataTag: bit 7 says the UID is mirrored, bit 6 the read counter, bits 3-0 give the UID length.
const PICC_DATA_TAG = 0x80 | 0x40 | SUN_UID_BYTES;
// SV2's fixed start (AN12196, session key for SDMMAC): 3CC3 0001 0080, then UID and counter.
const SV2_PREFIX = [0x3c, 0xc3, 0x00, 0x01, 0x00, 0x80];

/**
 * A UID as written on a bracelet or printed by a reader (`04:A2:3B:...`, `04 a2 3b ...`, `04-A2-...`)
 * as upper-case hex without separators. ISO 14443 UIDs are 4, 7 or 10 bytes.
 */
export function normaliseBraceletUid(input: string): string {
  const text = typeof input === "string" ? input.trim() : "";
  if (/^[0-9a-f]{2}([\s:-]?[0-9a-f]{2})*$/i.test(text)) {
    const hex = text.replace(/[\s:-]/g, "").toUpperCase();
    if (UID_BYTE_LENGTHS.includes(hex.length / 2)) return hex;
  }
  const shown = String(input).length > 40 ? `${String(input).slice(0, 40)}…` : String(input);
  throw new RangeError(`not a bracelet UID: "${shown}" (expected 4, 7 or 10 bytes of hex, such as 04:A2:3B:5C:6D:7E:80)`);
}

export interface SunMessage {
  /** The encrypted PICCData, 16 bytes in hex: the URL's `picc_data` (or `e`) parameter. */
  piccData: string;
  /** The SDMMAC, 8 bytes in hex: the URL's `cmac` (or `c`) parameter. */
  cmac: string;
}

/** The bracelet's application keys used by SDM, 16 bytes each. */
export interface SunKeys {
  metaReadKey: Uint8Array;
  fileReadKey: Uint8Array;
}

export interface SunReading {
  /** The bracelet's UID, as `normaliseBraceletUid` gives it. */
  uid: string;
  /** The bracelet's read counter, one more at each tap. */
  counter: number;
}

export type SunErrorCode = "sun_malformed" | "sun_mac_invalid";

export class SunError extends Error {
  constructor(readonly code: SunErrorCode, message: string) {
    super(message);
    this.name = "SunError";
  }
}

/**
 * The UID and read counter of a SUN message when the bracelet holding `keys` produced it.
 *
 * A plain UID can be cloned: any NFC phone reads it, and a writable tag can be given the same one.
 * A SUN message cannot be forged without the bracelet's keys, but a captured URL verifies as often
 * as it is replayed: a tap is fresh only if its counter is above the last one accepted for that
 * bracelet, which the caller must check and record.
 *
 * Throws `SunError`: `sun_malformed` when the parameters are not hex of the right lengths,
 * `sun_mac_invalid` when the message was not made with these keys (or was altered).
 */
export function verifySunMessage(message: SunMessage, keys: SunKeys): SunReading {
  const { metaReadKey, fileReadKey } = checkedKeys(keys);
  const encrypted = hexBytes(message.piccData, BLOCK, "picc_data");
  const presentedMac = hexBytes(message.cmac, 8, "cmac");
  const picc = aesCbc("decrypt", metaReadKey, encrypted);
  // Under another meta read key the block decrypts to noise, which almost never carries this tag.
  if (picc[0] !== PICC_DATA_TAG) throw new SunError("sun_mac_invalid", "the PICCData does not decrypt to a UID and a counter under this key");
  const uid = picc.subarray(1, 1 + SUN_UID_BYTES);
  const counterLittleEndian = picc.subarray(1 + SUN_UID_BYTES, 1 + SUN_UID_BYTES + 3);
  if (!timingSafeEqual(sdmMac(fileReadKey, uid, counterLittleEndian), presentedMac)) {
    throw new SunError("sun_mac_invalid", "the SUN message's MAC is not valid");
  }
  return { uid: toHex(uid), counter: counterLittleEndian[0]! | (counterLittleEndian[1]! << 8) | (counterLittleEndian[2]! << 16) };
}

/**
 * The SUN message a bracelet with this 7-byte UID and `keys` shows at read counter `counter`, for
 * tests and the local demo. The PICCData's last five bytes are random padding, as on the chip.
 */
export function sunMessageFor(uid: string, counter: number, keys: SunKeys): SunMessage {
  const { metaReadKey, fileReadKey } = checkedKeys(keys);
  const uidBytes = Buffer.from(normaliseBraceletUid(uid), "hex");
  if (uidBytes.length !== SUN_UID_BYTES) throw new RangeError(`SUN messages mirror 7-byte UIDs, not ${uidBytes.length}-byte ones`);
  if (!Number.isInteger(counter) || counter < 0 || counter > MAX_COUNTER) throw new RangeError(`a read counter is an integer from 0 to ${MAX_COUNTER}, not ${counter}`);
  const counterLittleEndian = Uint8Array.of(counter & 0xff, (counter >> 8) & 0xff, (counter >> 16) & 0xff);
  const picc = Buffer.concat([Uint8Array.of(PICC_DATA_TAG), uidBytes, counterLittleEndian, randomBytes(BLOCK - 1 - SUN_UID_BYTES - 3)]);
  return { piccData: toHex(aesCbc("encrypt", metaReadKey, picc)), cmac: toHex(sdmMac(fileReadKey, uidBytes, counterLittleEndian)) };
}

/**
 * The name of a key set: 8 bytes of SHA-256 over both keys, in hex (nothing of the keys can be
 * learnt from it). A tag is its UID and the keys its messages verify under: one programmed with
 * other keys may count from 0 again, so the database keeps a read-counter mark per UID and key set.
 */
export function sunKeySetOf(keys: SunKeys): string {
  const { metaReadKey, fileReadKey } = checkedKeys(keys);
  return createHash("sha256").update(metaReadKey).update(fileReadKey).digest("hex").slice(0, 16);
}

/**
 * SDMMAC with an empty MAC input (no mirrored file data before the MAC): a CMAC under the session
 * key derived from the file read key, UID and counter, truncated to its odd-indexed bytes.
 */
function sdmMac(fileReadKey: Uint8Array, uid: Uint8Array, counterLittleEndian: Uint8Array): Uint8Array {
  const sessionKey = aesCmac(fileReadKey, Uint8Array.from([...SV2_PREFIX, ...uid, ...counterLittleEndian]));
  const mac = aesCmac(sessionKey, new Uint8Array(0));
  return mac.filter((_, index) => index % 2 === 1);
}

/** AES-CMAC (RFC 4493) with a 16-byte key: a 16-byte tag. */
export function aesCmac(key: Uint8Array, message: Uint8Array): Uint8Array {
  const k1 = doubleInGf128(aesCbc("encrypt", key, new Uint8Array(BLOCK)));
  const k2 = doubleInGf128(k1);
  const lastBlockComplete = message.length > 0 && message.length % BLOCK === 0;
  const blocks = new Uint8Array(Math.max(1, Math.ceil(message.length / BLOCK)) * BLOCK);
  blocks.set(message);
  if (!lastBlockComplete) blocks[message.length] = 0x80;
  const subkey = lastBlockComplete ? k1 : k2;
  const last = blocks.length - BLOCK;
  for (let i = 0; i < BLOCK; i++) blocks[last + i]! ^= subkey[i]!;
  return aesCbc("encrypt", key, blocks).subarray(last);
}

/** Multiplication by x in GF(2^128), as RFC 4493 derives its subkeys. */
function doubleInGf128(block: Uint8Array): Uint8Array {
  const doubled = new Uint8Array(BLOCK);
  for (let i = 0; i < BLOCK; i++) doubled[i] = ((block[i]! << 1) | ((block[i + 1] ?? 0) >> 7)) & 0xff;
  if (block[0]! & 0x80) doubled[BLOCK - 1]! ^= 0x87;
  return doubled;
}

/** AES-128-CBC with a zero IV and no padding: whole blocks in, as many blocks out. */
function aesCbc(direction: "encrypt" | "decrypt", key: Uint8Array, data: Uint8Array): Uint8Array {
  const cipher = direction === "encrypt" ? createCipheriv("aes-128-cbc", key, ZERO_IV) : createDecipheriv("aes-128-cbc", key, ZERO_IV);
  cipher.setAutoPadding(false);
  return new Uint8Array(Buffer.concat([cipher.update(data), cipher.final()]));
}

function checkedKeys(keys: SunKeys): SunKeys {
  for (const name of ["metaReadKey", "fileReadKey"] as const) {
    if (!(keys[name] instanceof Uint8Array) || keys[name].length !== BLOCK) throw new RangeError(`the ${name} must be 16 bytes (AES-128)`);
  }
  return keys;
}

function hexBytes(value: unknown, length: number, name: string): Uint8Array {
  if (typeof value !== "string" || value.length !== length * 2 || !/^[0-9a-f]*$/i.test(value)) {
    throw new SunError("sun_malformed", `${name} must be ${length} bytes of hex`);
  }
  return new Uint8Array(Buffer.from(value, "hex"));
}

const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex").toUpperCase();
