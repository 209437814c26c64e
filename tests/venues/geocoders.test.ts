// External geocoders: local HTTP servers that speak the Photon and Nominatim protocols stand in
// for the real services, so the provider code (URL, fetch, timeout, validation, mapping) is what runs.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generateApiKey } from "../../supabase/functions/_shared/auth/api-keys.ts";
import { loadConfig } from "../../supabase/functions/_shared/config.ts";
import { revokeApiKey } from "../../scripts/lib/admin-operations.ts";
import { createTestContext, expectErrorBody, TEST_JWT_SECRET, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { listenOnLoopback } from "../../scripts/lib/listen.ts";

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A local geocoder: records every request and answers with the handler the test sets. */
class FakeGeocoder {
  readonly requests: URL[] = [];
  handler: Handler = (_req, res) => res.writeHead(500).end();
  private server: Server = createServer((req, res) => {
    this.requests.push(new URL(req.url ?? "/", "http://fake"));
    this.handler(req, res);
  });

  async start(): Promise<string> {
    return `http://127.0.0.1:${await listenOnLoopback(this.server)}`;
  }

  json(body: unknown, status = 200) {
    this.handler = (_req, res) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  }

  async stop() {
    this.server.closeAllConnections();
    this.server.close();
  }
}

const PHOTON_BERLIN = {
  type: "FeatureCollection",
  features: [
    {
      type: "Feature",
      geometry: { type: "Point", coordinates: [13.3888599, 52.5170365] },
      properties: {
        osm_id: 240109189, osm_type: "N", type: "city", name: "Berlin", state: "Berlin", country: "Germany", countrycode: "DE",
        extent: [13.088345, 52.6755087, 13.7611609, 52.33824],
      },
    },
    {
      type: "Feature",
      geometry: { type: "Point", coordinates: [13.4127, 52.5393] },
      properties: {
        type: "house", name: "Kulturbrauerei", street: "Schönhauser Allee", housenumber: "36", postcode: "10435",
        city: "Berlin", state: "Berlin", country: "Germany", countrycode: "DE",
      },
    },
    {
      type: "Feature",
      geometry: { type: "Point", coordinates: [-72.7545, 41.6215] },
      properties: { type: "city", name: "Berlin", state: "Connecticut", country: "United States", countrycode: "us", postcode: 6037 },
    },
  ],
};

const NOMINATIM_BERLIN = [
  {
    place_id: 1, lat: "52.5170365", lon: "13.3888599", category: "boundary", type: "administrative", name: "Berlin",
    display_name: "Berlin, Germany",
    address: { city: "Berlin", state: "Berlin", country: "Germany", country_code: "de", "ISO3166-2-lvl4": "DE-BE" },
  },
  {
    place_id: 2, lat: "52.5393", lon: "13.4127", category: "amenity", type: "arts_centre", name: "Kulturbrauerei",
    display_name: "Kulturbrauerei, 36, Schönhauser Allee, Prenzlauer Berg, Pankow, Berlin, 10435, Germany",
    address: {
      amenity: "Kulturbrauerei", house_number: "36", road: "Schönhauser Allee", suburb: "Prenzlauer Berg", city: "Berlin",
      state: "Berlin", postcode: "10435", country: "Germany", country_code: "de",
    },
  },
  {
    place_id: 3, lat: "44.4687", lon: "-71.1851", category: "place", type: "town", name: "",
    display_name: "Berlin, Coös County, New Hampshire, 03570, United States",
    address: { town: "Berlin", county: "Coös County", state: "New Hampshire", postcode: "03570", country_code: "us" },
  },
];

let photon: FakeGeocoder;
let nominatim: FakeGeocoder;
let photonContext: TestContext;
let nominatimContext: TestContext;
let photonUser: UserWithKey;
let nominatimUser: UserWithKey;
let closedPortUrl: string;

beforeAll(async () => {
  photon = new FakeGeocoder();
  nominatim = new FakeGeocoder();
  const photonUrl = await photon.start();
  // A path prefix, as a Nominatim behind a reverse proxy has.
  const nominatimUrl = `${await nominatim.start()}/nominatim`;
  const closed = new FakeGeocoder();
  closedPortUrl = await closed.start();
  await closed.stop();
  [photonContext, nominatimContext] = await Promise.all([
    createTestContext({ GEOCODER_PROVIDER: "photon", GEOCODER_URL: photonUrl, GEOCODER_TIMEOUT_MS: "500" }),
    createTestContext({ GEOCODER_PROVIDER: "nominatim", GEOCODER_URL: nominatimUrl, GEOCODER_TIMEOUT_MS: "500" }),
  ]);
  photonUser = await photonContext.userWithKey();
  nominatimUser = await nominatimContext.userWithKey();
});
afterAll(async () => {
  await Promise.all([photonContext?.close(), nominatimContext?.close(), photon?.stop(), nominatim?.stop()]);
});
beforeEach(() => {
  photon.requests.length = 0;
  nominatim.requests.length = 0;
});

const autocomplete = (t: TestContext, key: string, query: string) => t.call(`/api/v3/adresses/autocomplete?${query}`, { key });

describe("Photon protocol", () => {
  it("sends q and limit to {url}/api and maps the features", async () => {
    photon.json(PHOTON_BERLIN);
    const response = await autocomplete(photonContext, photonUser.key, "q=%20Berlin%20&take=7");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      items: [
        {
          label: "Berlin, Germany",
          name: "Berlin",
          address: { city: "Berlin", region: "Berlin", country: "DE" },
          coordinates: { lat: 52.5170365, lng: 13.3888599 },
          source: "photon",
        },
        {
          label: "Kulturbrauerei, Schönhauser Allee 36, 10435 Berlin, Germany",
          name: "Kulturbrauerei",
          address: { line1: "Schönhauser Allee 36", city: "Berlin", region: "Berlin", postalCode: "10435", country: "DE" },
          coordinates: { lat: 52.5393, lng: 13.4127 },
          source: "photon",
        },
        {
          // A numeric postcode is not the protocol's string: dropped, not fatal.
          label: "Berlin, Connecticut, United States",
          name: "Berlin",
          address: { city: "Berlin", region: "Connecticut", country: "US" },
          coordinates: { lat: 41.6215, lng: -72.7545 },
          source: "photon",
        },
      ],
    });
    expect(photon.requests).toHaveLength(1);
    const request = photon.requests[0]!;
    expect(request.pathname).toBe("/api");
    expect(request.searchParams.get("q")).toBe("Berlin");
    expect(request.searchParams.get("limit")).toBe("7");
  });

  it("an empty FeatureCollection is an empty list", async () => {
    photon.json({ type: "FeatureCollection", features: [] });
    const response = await autocomplete(photonContext, photonUser.key, "q=zzqxv");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ items: [] });
  });

  it("the route validates before the upstream is asked", async () => {
    photon.json(PHOTON_BERLIN);
    await expectErrorBody(await autocomplete(photonContext, photonUser.key, "q=B"), 400, "query_too_short");
    await expectErrorBody(await photonContext.call("/api/v3/adresses/autocomplete?q=Berlin"), 401, "missing_api_key");
    expect(photon.requests).toHaveLength(0);
  });

  it("an unknown or revoked key answers 401 invalid_api_key without a request to the upstream", async () => {
    photon.json(PHOTON_BERLIN);
    const revoked = await photonContext.userWithKey();
    await revokeApiKey(photonContext.adminDb, revoked.keyId);
    // The real key's visible prefix with a different secret part, a key never issued, a revoked key.
    const forged = `${photonUser.keyPrefix}_${randomBytes(32).toString("base64url")}`;
    for (const key of [forged, generateApiKey().plaintext, revoked.key]) {
      await expectErrorBody(await autocomplete(photonContext, key, "q=Berlin"), 401, "invalid_api_key");
    }
    expect(photon.requests).toHaveLength(0);
    // A valid key on the same context does reach the upstream, so the count above can fail.
    const response = await autocomplete(photonContext, photonUser.key, "q=Berlin");
    expect(response.status).toBe(200);
    expect((await response.json()).items.map((i: { name: string }) => i.name)).toEqual(["Berlin", "Kulturbrauerei", "Berlin"]);
    expect(photon.requests).toHaveLength(1);
  });
});

describe("Nominatim protocol", () => {
  it("sends q, format=jsonv2, addressdetails=1 and limit to {url}/search and maps the places", async () => {
    nominatim.json(NOMINATIM_BERLIN);
    const response = await autocomplete(nominatimContext, nominatimUser.key, "q=Berlin");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      items: [
        {
          label: "Berlin, Germany",
          name: "Berlin",
          address: { city: "Berlin", region: "Berlin", country: "DE" },
          coordinates: { lat: 52.5170365, lng: 13.3888599 },
          source: "nominatim",
        },
        {
          label: "Kulturbrauerei, 36, Schönhauser Allee, Prenzlauer Berg, Pankow, Berlin, 10435, Germany",
          name: "Kulturbrauerei",
          address: { line1: "Schönhauser Allee 36", city: "Berlin", region: "Berlin", postalCode: "10435", country: "DE" },
          coordinates: { lat: 52.5393, lng: 13.4127 },
          source: "nominatim",
        },
        {
          label: "Berlin, Coös County, New Hampshire, 03570, United States",
          name: "Berlin",
          address: { city: "Berlin", region: "New Hampshire", postalCode: "03570", country: "US" },
          coordinates: { lat: 44.4687, lng: -71.1851 },
          source: "nominatim",
        },
      ],
    });
    expect(nominatim.requests).toHaveLength(1);
    const request = nominatim.requests[0]!;
    expect(request.pathname).toBe("/nominatim/search");
    expect(Object.fromEntries(request.searchParams)).toMatchObject({ q: "Berlin", format: "jsonv2", addressdetails: "1", limit: "10" });
  });

  it("odd characters reach the upstream intact", async () => {
    nominatim.json([]);
    const q = "Café 'Zürich' & 50% \"off\" 😀 תל אביב";
    const response = await autocomplete(nominatimContext, nominatimUser.key, `q=${encodeURIComponent(q)}`);
    expect(response.status).toBe(200);
    expect(nominatim.requests[0]!.searchParams.get("q")).toBe(q);
  });
});

describe("a failing upstream answers 502 geocoder_unavailable, never a 500", () => {
  const cases: Array<[string, Handler]> = [
    ["status 500", (_req, res) => res.writeHead(500, { "content-type": "application/json" }).end("{}")],
    ["status 429", (_req, res) => res.writeHead(429).end("slow down")],
    ["an HTML page", (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<html>maintenance</html>")],
    ["truncated JSON", (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"features": [')],
    ["JSON of another shape", (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"results": []}')],
    ["coordinates out of range", (_req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(
        { features: [{ geometry: { coordinates: [500, 95] }, properties: { name: "x" } }] },
      ))],
    ["a dropped connection", (req) => req.socket.destroy()],
  ];

  it.each(cases)("Photon: %s", async (_name, handler) => {
    photon.handler = handler;
    const response = await autocomplete(photonContext, photonUser.key, "q=Berlin");
    const body = await expectErrorBody(response, 502, "geocoder_unavailable");
    expect(body.details.provider).toBe("photon");
  });

  it.each(cases)("Nominatim: %s", async (_name, handler) => {
    nominatim.handler = handler;
    const response = await autocomplete(nominatimContext, nominatimUser.key, "q=Berlin");
    const body = await expectErrorBody(response, 502, "geocoder_unavailable");
    expect(body.details.provider).toBe("nominatim");
  });

  it("an upstream slower than GEOCODER_TIMEOUT_MS is given up on in time", async () => {
    photon.handler = (_req, res) => {
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(PHOTON_BERLIN)), 3_000);
    };
    const started = Date.now();
    const body = await expectErrorBody(await autocomplete(photonContext, photonUser.key, "q=Berlin"), 502, "geocoder_unavailable");
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(body.details.reason).toContain("500 ms");
  });

  it("an upstream that is not listening", async () => {
    const t = await createTestContext({ GEOCODER_PROVIDER: "nominatim", GEOCODER_URL: closedPortUrl });
    try {
      const user = await t.userWithKey();
      const body = await expectErrorBody(await autocomplete(t, user.key, "q=Berlin"), 502, "geocoder_unavailable");
      expect(body.details).toEqual({ provider: "nominatim", reason: "upstream unreachable" });
    } finally {
      await t.close();
    }
  });
});

describe("configuration", () => {
  const base = { GATEWAY_DATABASE_URL: "postgres://localhost/x", JWT_SECRET: TEST_JWT_SECRET };

  it("defaults to the postgres provider with a 3 s timeout", () => {
    expect(loadConfig(base)).toMatchObject({ GEOCODER_PROVIDER: "postgres", GEOCODER_TIMEOUT_MS: 3000 });
    expect(loadConfig(base).GEOCODER_URL).toBeUndefined();
  });

  it("an external provider needs GEOCODER_URL; an unknown provider is refused", () => {
    expect(() => loadConfig({ ...base, GEOCODER_PROVIDER: "photon" })).toThrow(/GEOCODER_URL/);
    expect(() => loadConfig({ ...base, GEOCODER_PROVIDER: "google", GEOCODER_URL: "http://x" })).toThrow(/GEOCODER_PROVIDER/);
    expect(loadConfig({ ...base, GEOCODER_PROVIDER: "nominatim", GEOCODER_URL: "http://127.0.0.1:8080" }).GEOCODER_URL)
      .toBe("http://127.0.0.1:8080");
  });
});
