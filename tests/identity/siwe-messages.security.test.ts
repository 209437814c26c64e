// What a signed SIWE (EIP-4361) message must say before it links a wallet. Every message here is
// signed by its wallet, so the refusal is about the text; none of them spends its nonce.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SiweMessage } from "viem/siwe";
import { createTestContext, expectErrorBody, type TestContext } from "../setup/test-context.ts";
import { issueNonce, link, listAddresses, newWallet, SIWE_DOMAIN, siweMessage } from "./siwe-fixtures.ts";

let t: TestContext;
beforeAll(async () => {
  t = await createTestContext();
});
afterAll(() => t.close());

const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** Replaces the value of the message's `label:` line. */
const setField = (label: string, value: string) => (message: string) => {
  const line = new RegExp(`^${label}: .*$`, "m");
  if (!line.test(message)) throw new Error(`the message has no ${label} line`);
  return message.replace(line, `${label}: ${value}`);
};

/** Links with a message made by the fixture, changed by `edit`, then signed by its wallet. */
async function linkSigned(overrides: Partial<SiweMessage>, edit: (message: string) => string = (m) => m) {
  const user = await t.userWithKey();
  const wallet = newWallet();
  const nonce = await issueNonce(t, user.key);
  const message = edit(siweMessage(wallet, nonce, overrides));
  const response = await link(t, user.key, { message, signature: await wallet.signMessage({ message }) });
  return { user, nonce, response };
}

/** The answer is 400 `code`, nothing was linked and the nonce is still there to use. */
async function expectRefused(result: Awaited<ReturnType<typeof linkSigned>>, code: string) {
  const body = await expectErrorBody(result.response, 400, code);
  expect(await listAddresses(t, result.user.key)).toEqual([]);
  expect(await t.owner`select 1 from core.siwe_nonces where nonce = ${result.nonce}`).toHaveLength(1);
  return body;
}

describe("time fields must be RFC 3339 date-times with a time zone", () => {
  it.each([
    ["Expiration Time", "2019-01-01"],
    ["Expiration Time", "not-a-date"],
    ["Expiration Time", "2099-01-01T00:00:00"], // no time zone
    ["Expiration Time", "2099-01-01 00:00:00Z"], // a space for the T
    ["Expiration Time", "2099-02-30T00:00:00Z"], // Date would take it as March 2nd
    ["Expiration Time", "2099-13-01T00:00:00Z"],
    ["Expiration Time", "2099-01-01T24:00:00Z"],
    ["Expiration Time", "2099-01-01T00:00:00+24:00"],
    ["Expiration Time", "+2099-01-01T00:00:00Z"],
    ["Not Before", "garbage"],
    ["Not Before", "2019-01-01"],
    ["Issued At", "yesterday"],
    ["Issued At", "2025-02-29T00:00:00Z"], // 2025 is no leap year
  ])("%s: %s answers 400 siwe_time_invalid", async (label, value) => {
    const overrides = { expirationTime: inSeconds(600), notBefore: inSeconds(-600) };
    const body = await expectRefused(await linkSigned(overrides, setField(label, value)), "siwe_time_invalid");
    const field = { "Expiration Time": "expirationTime", "Not Before": "notBefore", "Issued At": "issuedAt" }[label];
    expect(body.details).toEqual({ field });
  });

  it("a message without Issued At answers 400 siwe_time_invalid", async () => {
    const result = await linkSigned({}, (message) => message.replace(/\nIssued At: .*$/m, ""));
    const body = await expectRefused(result, "siwe_time_invalid");
    expect(body.details).toEqual({ field: "issuedAt" });
  });

  it("a bad time is reported even when another field would expire the message", async () => {
    const result = await linkSigned(
      { expirationTime: inSeconds(-60), notBefore: inSeconds(-600) },
      setField("Not Before", "garbage"),
    );
    await expectRefused(result, "siwe_time_invalid");
  });
});

describe("the message must be valid now", () => {
  it("an Expiration Time in the past answers 400 siwe_expired", async () => {
    const body = await expectRefused(await linkSigned({ expirationTime: inSeconds(-1) }), "siwe_expired");
    expect(body.message).toMatch(/expired/i);
  });

  it("an Expiration Time that is past in UTC though its local clock time is ahead is expired", async () => {
    // Half an hour ago, written at +01:00: the local time reads half an hour ahead.
    const past = new Date(Date.now() - 30 * 60_000 + 3600_000).toISOString().replace(/\.\d+Z$/, "+01:00");
    await expectRefused(await linkSigned({ expirationTime: inSeconds(600) }, setField("Expiration Time", past)), "siwe_expired");
  });

  it("a Not Before in the future answers 400 siwe_not_yet_valid", async () => {
    const body = await expectRefused(await linkSigned({ notBefore: inSeconds(60) }), "siwe_not_yet_valid");
    expect(body.message).toMatch(/not valid yet/i);
  });

  it("an Issued At more than 60 seconds ahead answers 400 siwe_issued_in_future", async () => {
    await expectRefused(await linkSigned({ issuedAt: inSeconds(300) }), "siwe_issued_in_future");
    await expectRefused(await linkSigned({ issuedAt: new Date("2999-01-01T00:00:00Z") }), "siwe_issued_in_future");
  });
});

describe("chain ids are exact integers from 1 to 2^53-1", () => {
  it.each([
    ["2^53 + 1, which a JS number would store as 2^53", "9007199254740993"],
    ["2^53", "9007199254740992"],
    ["zero", "0"],
    ["a leading zero", "08453"],
    ["a 30-digit number", "1".repeat(30)],
  ])("%s answers 400 siwe_chain_id_invalid", async (_label, chainId) => {
    await expectRefused(await linkSigned({}, setField("Chain ID", chainId)), "siwe_chain_id_invalid");
  });
});

describe("the URI is an absolute http(s) URI on the message's domain", () => {
  it.each([
    ["not a URI", "not a uri"],
    ["a relative reference", "/link"],
    ["another host", "https://evil.example/link"],
    ["the domain's host on another port", "http://localhost:3000/link"],
    ["the domain with user info", `http://user@${SIWE_DOMAIN}/link`],
    ["another scheme", `ftp://${SIWE_DOMAIN}/link`],
    ["a space", `http://${SIWE_DOMAIN}/a link`],
  ])("%s answers 400 siwe_uri_invalid", async (_label, uri) => {
    await expectRefused(await linkSigned({}, setField("URI", uri)), "siwe_uri_invalid");
  });

  it("a URI whose scheme differs from the one the message names answers 400 siwe_uri_invalid", async () => {
    await expectRefused(await linkSigned({ scheme: "https", uri: `http://${SIWE_DOMAIN}/link` }), "siwe_uri_invalid");
    expect((await linkSigned({ scheme: "https", uri: `https://${SIWE_DOMAIN}/link` })).response.status).toBe(201);
  });

  it("a resource that is not an absolute URI answers 400 siwe_uri_invalid", async () => {
    const result = await linkSigned({ resources: ["https://example.com/a"] }, (m) => m.replace("- https://example.com/a", "- not a uri"));
    await expectRefused(result, "siwe_uri_invalid");
  });
});

describe("the text follows EIP-4361 line by line", () => {
  it.each([
    ["a field repeated after the last one", (m: string) => `${m}\nNonce: 00000000`],
    ["a trailing line end", (m: string) => `${m}\n`],
    ["a statement over two lines", (m: string) => m.replace("Link this wallet to my account.", "Link this wallet\nto my account.")],
    ["no empty line before the fields", (m: string) => m.replace("\n\nURI: ", "\nURI: ")],
  ])("%s answers 400 siwe_message_invalid", async (_label, edit) => {
    await expectRefused(await linkSigned({}, edit), "siwe_message_invalid");
  });

  it("an Expiration Time out of its place is refused, not ignored", async () => {
    // viem's parser skipped an Expiration Time written after Not Before, and the message passed.
    const outOfOrder = (m: string) => m.replace(/^(Expiration Time: .*)\n(Not Before: .*)$/m, "$2\n$1");
    const result = await linkSigned({ expirationTime: inSeconds(-60), notBefore: inSeconds(-600) }, outOfOrder);
    await expectRefused(result, "siwe_message_invalid");
  });
});

// The checks above must not refuse what EIP-4361 allows (these pass on the old code too).
describe("still accepted", () => {
  it("offsets, fractions and the lower-case t and z RFC 3339 allows", async () => {
    const edits = [
      setField("Issued At", new Date().toISOString().replace("T", "t").replace("Z", "z")),
      setField("Expiration Time", inSeconds(3600).toISOString().replace(/\.\d+Z$/, ".123456789+00:00")),
      setField("Not Before", "2020-02-29T23:30:00-01:30"), // a leap day, written in another zone
    ];
    const { response } = await linkSigned(
      { expirationTime: inSeconds(3600), notBefore: inSeconds(-600) },
      (message) => edits.reduce((text, edit) => edit(text), message),
    );
    expect(response.status).toBe(201);
  });

  it("an Issued At within the 60 seconds of clock skew", async () => {
    expect((await linkSigned({ issuedAt: inSeconds(30) })).response.status).toBe(201);
  });

  it("chain id 2^53-1, answered exactly", async () => {
    const { response } = await linkSigned({ chainId: Number.MAX_SAFE_INTEGER });
    expect(response.status).toBe(201);
    expect((await response.json()).chainId).toBe(9007199254740991);
  });

  it("a message without a statement", async () => {
    expect((await linkSigned({ statement: undefined })).response.status).toBe(201);
  });

  it("a message with every optional field", async () => {
    const { response } = await linkSigned({
      scheme: "http",
      expirationTime: inSeconds(600),
      notBefore: inSeconds(-600),
      requestId: "request-1",
      resources: ["https://example.com/terms", "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"],
    });
    expect(response.status).toBe(201);
  });
});
