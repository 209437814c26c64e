// Bracelet UIDs are read in any common notation; a SUN message verifies only under the bracelet's
// keys, unaltered, and gives back its UID and read counter (checked against the published vectors).
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  aesCmac,
  normaliseBraceletUid,
  SunError,
  type SunKeys,
  sunMessageFor,
  verifySunMessage,
} from "../../supabase/functions/_shared/checkin/bracelet.ts";

const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, "hex"));
const hex = (value: Uint8Array) => Buffer.from(value).toString("hex").toUpperCase();
const zeroKeys: SunKeys = { metaReadKey: new Uint8Array(16), fileReadKey: new Uint8Array(16) };
const newKeys = (): SunKeys => ({ metaReadKey: new Uint8Array(randomBytes(16)), fileReadKey: new Uint8Array(randomBytes(16)) });

function sunRefusal(call: () => unknown): string {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(SunError);
    return (error as SunError).code;
  }
  throw new Error("the SUN message was accepted");
}

describe("normaliseBraceletUid", () => {
  it("reads colons, spaces, dashes and either case as upper-case hex", () => {
    expect(normaliseBraceletUid("04:a2:3b:5c:6d:7e:80")).toBe("04A23B5C6D7E80");
    expect(normaliseBraceletUid(" 04 A2 3B 5C 6D 7E 80 ")).toBe("04A23B5C6D7E80");
    expect(normaliseBraceletUid("04-A2-3B-5C")).toBe("04A23B5C");
    expect(normaliseBraceletUid("04a23b5c6d7e8091a2b3")).toBe("04A23B5C6D7E8091A2B3");
  });

  it("refuses other lengths, other characters and misplaced separators", () => {
    for (const input of ["", "04A23B", "04A23B5C6D", "04A23B5C6D7E8091A2B3C4", "04:A2:3B:5G", "04A:23B5C", "04::A2:3B:5C", "0x04A23B5C"]) {
      expect(() => normaliseBraceletUid(input), input).toThrow(RangeError);
    }
    expect(() => normaliseBraceletUid("04A23B")).toThrow(/4, 7 or 10 bytes/);
  });
});

describe("aesCmac", () => {
  // RFC 4493, section 4.
  const key = bytes("2b7e151628aed2a6abf7158809cf4f3c");
  const message = "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
  it.each([
    [0, "BB1D6929E95937287FA37D129B756746"],
    [16, "070A16B46B4D4144F79BDD9DD04A287C"],
    [40, "DFA66747DE9AE63030CA32611497C827"],
    [64, "51F0BEBF7E3B9D92FC49741779363CFE"],
  ])("matches RFC 4493's vector for %i bytes", (length, expected) => {
    expect(hex(aesCmac(key, bytes(message.slice(0, length * 2))))).toBe(expected);
  });
});

describe("verifySunMessage", () => {
  // AN12196, SUN with encrypted PICCData and SDMMAC over an empty input, all-zero factory keys.
  const an12196 = { piccData: "EF963FF7828658A599F3041510671E88", cmac: "94EED9EE65337086" };

  it("reads the UID and counter of AN12196's example", () => {
    expect(verifySunMessage(an12196, zeroKeys)).toEqual({ uid: "04DE5F1EACC040", counter: 61 });
    expect(verifySunMessage({ piccData: an12196.piccData.toLowerCase(), cmac: an12196.cmac.toLowerCase() }, zeroKeys).counter).toBe(61);
  });

  it("refuses a tampered MAC or PICCData", () => {
    expect(sunRefusal(() => verifySunMessage({ ...an12196, cmac: "94EED9EE65337087" }, zeroKeys))).toBe("sun_mac_invalid");
    expect(sunRefusal(() => verifySunMessage({ ...an12196, piccData: "EF963FF7828658A599F3041510671E89" }, zeroKeys))).toBe("sun_mac_invalid");
  });

  it("verifies messages made by sunMessageFor, with their counter", () => {
    const keys = newKeys();
    for (const counter of [0, 1, 62, 0x0102ff, 0xffffff]) {
      const message = sunMessageFor("04:A2:3B:5C:6D:7E:80", counter, keys);
      expect(verifySunMessage(message, keys)).toEqual({ uid: "04A23B5C6D7E80", counter });
    }
    const first = sunMessageFor("04A23B5C6D7E80", 7, keys);
    const again = sunMessageFor("04A23B5C6D7E80", 7, keys);
    expect(again.piccData).not.toBe(first.piccData);
    expect(again.cmac).toBe(first.cmac);
  });

  it("refuses a message made under other keys", () => {
    const keys = newKeys();
    const message = sunMessageFor("04A23B5C6D7E80", 5, keys);
    expect(sunRefusal(() => verifySunMessage(message, newKeys()))).toBe("sun_mac_invalid");
    expect(sunRefusal(() => verifySunMessage(message, { ...keys, fileReadKey: newKeys().fileReadKey }))).toBe("sun_mac_invalid");
    expect(sunRefusal(() => verifySunMessage(message, { ...keys, metaReadKey: newKeys().metaReadKey }))).toBe("sun_mac_invalid");
  });

  it("calls parameters of the wrong shape malformed", () => {
    for (const message of [
      { ...an12196, piccData: an12196.piccData.slice(2) },
      { ...an12196, piccData: `${an12196.piccData}00` },
      { ...an12196, piccData: "ZF963FF7828658A599F3041510671E88" },
      { ...an12196, cmac: "94EED9EE653370" },
      { ...an12196, cmac: "" },
    ]) {
      expect(sunRefusal(() => verifySunMessage(message, zeroKeys))).toBe("sun_malformed");
    }
  });

  it("refuses keys that are not 16 bytes, and messages for what a bracelet cannot show", () => {
    expect(() => verifySunMessage(an12196, { ...zeroKeys, fileReadKey: new Uint8Array(32) })).toThrow(RangeError);
    expect(() => sunMessageFor("04A23B5C", 1, zeroKeys)).toThrow(/7-byte UIDs/);
    expect(() => sunMessageFor("04A23B5C6D7E80", 0x1000000, zeroKeys)).toThrow(RangeError);
    expect(() => sunMessageFor("04A23B5C6D7E80", -1, zeroKeys)).toThrow(RangeError);
  });
});
