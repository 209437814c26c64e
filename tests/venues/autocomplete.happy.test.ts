// Venue autocomplete on the real data set (GeoNames cities, loaded into the template database) and
// on the venues of events, through the app with real API keys.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VenueSuggestionSchema } from "../../supabase/functions/_shared/venues/schemas.ts";
import { createEvent } from "../events/event-fixtures.ts";
import { createTestContext, type TestContext, type UserWithKey } from "../setup/test-context.ts";

interface Suggestion {
  label: string;
  name: string;
  address: { line1?: string; line2?: string; city?: string; region?: string; postalCode?: string; country?: string };
  coordinates: { lat: number; lng: number };
  source: string;
}

let t: TestContext;
let alice: UserWithKey;
let bob: UserWithKey;
beforeAll(async () => {
  t = await createTestContext();
  alice = await t.userWithKey();
  bob = await t.userWithKey();
});
afterAll(() => t.close());

async function suggest(key: string, q: string, extra = "", path = "/api/v3/adresses/autocomplete"): Promise<Suggestion[]> {
  const response = await t.call(`${path}?q=${encodeURIComponent(q)}${extra}`, { key });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`autocomplete ${q}: ${response.status} ${JSON.stringify(body)}`);
  expect(Object.keys(body)).toEqual(["items"]);
  for (const item of body.items) VenueSuggestionSchema.parse(item);
  return body.items;
}

const venue = (name: string, city: string, lat: number, lng: number) => ({
  name,
  address: { line1: "Schönhauser Allee 36", city, postalCode: "10435", country: "DE" },
  coordinates: { lat, lng },
});

describe("venue autocomplete: places", () => {
  it("'Berl' suggests Berlin, Germany first, with region, country and coordinates", async () => {
    const items = await suggest(alice.key, "Berl");
    expect(items).toHaveLength(10);
    expect(items[0]).toMatchObject({
      name: "Berlin",
      label: "Berlin, State of Berlin, Germany",
      address: { city: "Berlin", region: "State of Berlin", country: "DE" },
      source: "places",
    });
    expect(items[0]!.coordinates.lat).toBeCloseTo(52.52, 1);
    expect(items[0]!.coordinates.lng).toBeCloseTo(13.41, 1);
    // Every suggestion starts with the text, case-insensitively.
    for (const item of items) expect(item.name.toLowerCase().startsWith("berl")).toBe(true);
    // One place per country before a second from any: ten suggestions, ten countries.
    expect(new Set(items.map((i) => i.address.country)).size).toBe(10);
  });

  it("'san fran' finds San Francisco, and adding the state puts California's first", async () => {
    const items = await suggest(alice.key, "san fran");
    expect(items.some((i) => i.name === "San Francisco")).toBe(true);
    for (const item of items) expect(item.name.toLowerCase().startsWith("san fran")).toBe(true);

    const exact = await suggest(alice.key, "San Francisco", "&take=20");
    const california = exact.find((i) => i.address.region === "California");
    expect(california).toMatchObject({ name: "San Francisco", address: { country: "US" }, label: "San Francisco, California, United States" });
    expect(california!.coordinates.lat).toBeCloseTo(37.77, 1);
    expect(california!.coordinates.lng).toBeCloseTo(-122.42, 1);

    const qualified = await suggest(alice.key, "san francisco california");
    expect(qualified.map((i) => i.label)).toContain("San Francisco, California, United States");
    for (const item of qualified) expect(item.label.toLowerCase()).toContain("california");
  });

  it("a name equal to the text comes before longer names, and the most prominent of that name first", async () => {
    const items = await suggest(alice.key, "paris");
    expect(items[0]).toMatchObject({ name: "Paris", address: { country: "FR", region: "Île-de-France" } });
    expect(items.slice(0, 5).every((i) => i.name === "Paris")).toBe(true);
  });

  it("words of the text may each start a word of the label: city plus country, a later word of the name", async () => {
    const berlinGermany = await suggest(alice.key, "berlin germany");
    expect(berlinGermany[0]).toMatchObject({ name: "Berlin", address: { country: "DE" } });
    for (const item of berlinGermany) expect(item.address.country).toBe("DE");

    const berlinDe = await suggest(alice.key, "Berlin, DE");
    expect(berlinDe[0]).toMatchObject({ name: "Berlin", address: { country: "DE" } });

    const angeles = await suggest(alice.key, "angeles");
    expect(angeles.map((i) => i.label)).toContain("Los Angeles, California, United States");
  });

  it("places that read the same are suggested once", async () => {
    // GeoNames holds two O'Fallons in Illinois and two in Missouri (a city and a namesake place).
    const items = await suggest(alice.key, "O'Fallon");
    const labels = items.filter((i) => i.name === "O'Fallon").map((i) => i.label);
    expect(labels.sort()).toEqual(["O'Fallon, Illinois, United States", "O'Fallon, Missouri, United States"]);
    expect(new Set(items.map((i) => i.label)).size).toBe(items.length);
  });

  it("take bounds the suggestions (default 10, up to 20) and text around the query is trimmed", async () => {
    expect(await suggest(alice.key, "lond", "&take=3")).toHaveLength(3);
    expect(await suggest(alice.key, "lond", "&take=20")).toHaveLength(20);
    expect(await suggest(alice.key, "  lond  ")).toEqual(await suggest(alice.key, "lond"));
  });

  it("two-letter text works and is ranked like longer text", async () => {
    const items = await suggest(alice.key, "Be");
    expect(items).toHaveLength(10);
    for (const item of items) expect(item.name.toLowerCase().startsWith("be")).toBe(true);
    expect(new Set(items.map((i) => i.address.country)).size).toBe(10);
  });

  it("the alias /api/v3/addresses/autocomplete answers the same", async () => {
    expect(await suggest(alice.key, "Berl", "", "/api/v3/addresses/autocomplete")).toEqual(await suggest(alice.key, "Berl"));
  });

  it("text that matches nothing answers an empty list", async () => {
    expect(await suggest(alice.key, "zzqxv")).toEqual([]);
  });
});

describe("venue autocomplete: venues of events", () => {
  it("suggests the venue of a visible published event, before places, with the event's address", async () => {
    await createEvent(t, bob.key, {
      status: "PUBLISHED", visibility: "public", venue: venue("Kulturbrauerei", "Berlin", 52.5393, 13.4127),
    });
    const items = await suggest(alice.key, "Kulturb");
    expect(items[0]).toEqual({
      label: "Kulturbrauerei, Schönhauser Allee 36, Berlin, Germany",
      name: "Kulturbrauerei",
      address: { line1: "Schönhauser Allee 36", city: "Berlin", postalCode: "10435", country: "DE" },
      coordinates: { lat: 52.5393, lng: 13.4127 },
      source: "events",
    });
  });

  it("a venue shared by several events is suggested once", async () => {
    for (let i = 0; i < 3; i++) {
      await createEvent(t, bob.key, { status: "PUBLISHED", venue: venue("Tempodrom", "Berlin", 52.5006, 13.3805) });
    }
    await createEvent(t, bob.key, { status: "PUBLISHED", venue: venue("Tempodrom Annex", "Berlin", 52.5007, 13.3806) });
    const items = (await suggest(alice.key, "tempodrom")).filter((i) => i.source === "events");
    expect(items.map((i) => i.name)).toEqual(["Tempodrom", "Tempodrom Annex"]);
  });

  it("another user's private event, draft or unlisted event lends no venue; the owner's own do", async () => {
    await createEvent(t, bob.key, { status: "PUBLISHED", visibility: "private", venue: venue("Zyxprivate Hall", "Berlin", 52.51, 13.4) });
    await createEvent(t, bob.key, { status: "INCOMPLETE", visibility: "public", venue: venue("Zyxdraft Hall", "Berlin", 52.52, 13.4) });
    await createEvent(t, bob.key, { status: "PUBLISHED", visibility: "unlisted", venue: venue("Zyxunlisted Hall", "Berlin", 52.53, 13.4) });

    expect(await suggest(alice.key, "Zyx")).toEqual([]);
    const own = await suggest(bob.key, "Zyx");
    expect(own.map((i) => [i.name, i.source])).toEqual([
      ["Zyxdraft Hall", "events"], ["Zyxprivate Hall", "events"], ["Zyxunlisted Hall", "events"],
    ]);
  });

  it("a venue without coordinates is not suggested", async () => {
    await createEvent(t, bob.key, {
      status: "PUBLISHED", venue: { name: "Qwvnowhere Club", address: { city: "Berlin", country: "DE" }, coordinates: null },
    });
    expect(await suggest(bob.key, "Qwvnowhere")).toEqual([]);
  });

  it("a suggestion is accepted as an event's venue as it is", async () => {
    const [berlin] = await suggest(alice.key, "Berlin");
    const { label: _label, source: _source, ...asVenue } = berlin!;
    const event = await createEvent(t, alice.key, { venue: asVenue });
    expect(event.venue).toEqual({ name: "Berlin", address: berlin!.address, coordinates: berlin!.coordinates });
  });
});
