// Venue autocomplete refuses what it cannot answer with a clear 400 or 401, treats every character
// of the text literally, and never fails with a 500.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestContext, expectErrorBody, type TestContext, type UserWithKey } from "../setup/test-context.ts";

let t: TestContext;
let user: UserWithKey;
beforeAll(async () => {
  t = await createTestContext();
  user = await t.userWithKey();
});
afterAll(() => t.close());

const PATHS = ["/api/v3/adresses/autocomplete", "/api/v3/addresses/autocomplete"];
const url = (q: string, extra = "", path = PATHS[0]) => `${path}?q=${encodeURIComponent(q)}${extra}`;

describe("venue autocomplete: credentials", () => {
  it.each(PATHS)("%s without x-api-key answers 401 missing_api_key", async (path) => {
    await expectErrorBody(await t.call(`${path}?q=Berlin`), 401, "missing_api_key");
  });

  it("an unknown key answers 401 invalid_api_key, a bearer token 401 wrong_auth_scheme", async () => {
    await expectErrorBody(await t.call(url("Berlin"), { key: `${user.key.slice(0, -4)}zzzz` }), 401, "invalid_api_key");
    await expectErrorBody(
      await t.call(url("Berlin"), { headers: { authorization: `Bearer ${user.key}` } }),
      401,
      "wrong_auth_scheme",
    );
  });
});

describe("venue autocomplete: the text", () => {
  it("a missing q answers 400 validation_failed", async () => {
    const body = await expectErrorBody(await t.call(PATHS[0]!, { key: user.key }), 400, "validation_failed");
    expect(body.details.issues.map((i: { path: string }) => i.path)).toEqual(["q"]);
  });

  it.each(["", " ", "B", "  B  ", "é", "😀", "\u05d0"])("%j (under two characters once trimmed) answers 400 query_too_short", async (q) => {
    await expectErrorBody(await t.call(url(q), { key: user.key }), 400, "query_too_short");
  });

  it("more than 200 characters answers 400 query_too_long; exactly 200 is searched", async () => {
    await expectErrorBody(await t.call(url("a".repeat(201)), { key: user.key }), 400, "query_too_long");
    await expectErrorBody(await t.call(url("Berlin ".repeat(500)), { key: user.key }), 400, "query_too_long");
    expect((await t.call(url("a".repeat(200)), { key: user.key })).status).toBe(200);
    // Characters, not UTF-16 units or bytes: 200 emoji are 200 characters.
    expect((await t.call(url("😀".repeat(200)), { key: user.key })).status).toBe(200);
    await expectErrorBody(await t.call(url("😀".repeat(201)), { key: user.key }), 400, "query_too_long");
  });

  it.each(["Ber\u0000lin", "Ber\tlin", "Ber\nlin", "Berlin\u007f", "Ber\u0085lin"])(
    "%j (a control character) answers 400 validation_failed",
    async (q) => {
      await expectErrorBody(await t.call(url(q), { key: user.key }), 400, "validation_failed");
    },
  );

  it("q given twice answers 400 validation_failed", async () => {
    await expectErrorBody(await t.call(`${PATHS[0]}?q=Berlin&q=Paris`, { key: user.key }), 400, "validation_failed");
  });

  it("LIKE wildcards and escapes are literal: they match nothing rather than everything", async () => {
    for (const q of ["%%", "__", "%_", "\\%", "\\\\", "%%%%%%", "B%", "_%"]) {
      const response = await t.call(url(q), { key: user.key });
      expect(response.status, q).toBe(200);
      expect((await response.json()).items, q).toEqual([]);
    }
    // As LIKE patterns each of these would match Berlin.
    for (const q of ["Ber_in", "B_rlin", "%erlin", "_erlin"]) {
      const response = await t.call(url(q), { key: user.key });
      expect(response.status, q).toBe(200);
      expect((await response.json()).items.map((i: { name: string }) => i.name), q).not.toContain("Berlin");
    }
    // The same text without the wildcard does find it, so the assertions above can fail.
    expect((await (await t.call(url("Berlin"), { key: user.key })).json()).items[0].name).toBe("Berlin");
  });

  it("quotes, emoji, right-to-left and other scripts are searched, never a 500", async () => {
    const odd = [
      "O'Fallon", "o''fallon", "\"Berlin\"", "'; drop table community.places; --", "Berlin 😀", "😀😀", "القاهرة", "תל אביב",
      "\u200fBerlin\u200f", "東京", "Zürich", "ZÜRICH", "Straße", "İstanbul", "a:*", "a & b | !c", "(berlin)", "<->", "\\x00",
      "%ff%fe", "\ufffd\ufffd", "e\u0301e\u0301", "ǅǅ",
    ];
    for (const q of odd) {
      const response = await t.call(url(q), { key: user.key });
      expect(response.status, q).toBe(200);
      expect(Array.isArray((await response.json()).items), q).toBe(true);
    }
    const fallon = await (await t.call(url("O'Fallon"), { key: user.key })).json();
    expect(fallon.items.map((i: { name: string }) => i.name)).toContain("O'Fallon");
    const zurich = await (await t.call(url("ZÜRICH"), { key: user.key })).json();
    expect(zurich.items[0]).toMatchObject({ name: "Zürich", address: { country: "CH" } });
  });

  it("a raw, badly encoded query string answers a 200 or a 400, never a 500", async () => {
    for (const raw of ["%ZZ", "%", "%ED%A0%80", "%C0%AF", "%FF%FE", "Berl%"]) {
      const response = await t.call(`${PATHS[0]}?q=${raw}`, { key: user.key });
      expect([200, 400], raw).toContain(response.status);
    }
  });
});

describe("venue autocomplete: other parameters", () => {
  it.each(["0", "21", "-1", "1.5", "ten", ""])("take=%j answers 400 validation_failed", async (take) => {
    await expectErrorBody(await t.call(url("Berlin", `&take=${take}`), { key: user.key }), 400, "validation_failed");
  });

  it("limit is refused with a code that says to use take", async () => {
    const body = await expectErrorBody(await t.call(url("Berlin", "&limit=5"), { key: user.key }), 400, "limit_not_supported");
    expect(body.message).toContain("take");
  });

  it("an unknown parameter answers 400 unknown_parameter", async () => {
    await expectErrorBody(await t.call(url("Berlin", "&country=DE"), { key: user.key }), 400, "unknown_parameter");
  });

  it("only GET is allowed", async () => {
    const response = await t.call(url("Berlin"), { method: "POST", key: user.key });
    expect(response.status).toBe(405);
  });
});
