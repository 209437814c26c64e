// Event helpers for the events and listing suites: real requests through the app, nothing mocked.
import type { TestContext } from "../setup/test-context.ts";

export const EVM_COLLECTION = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
export const SUI_COLLECTION = "0x2c8d603bc51326b8c13cef9dd07031a408a48dddb541963357661df5d3204809::ticket::Ticket";

export interface EventItem {
  id: string;
  ownerId: string;
  name: string;
  slug: string;
  description: string;
  startsAt: string;
  endsAt: string;
  timeZone: string;
  venue: { name: string; address: Record<string, string>; coordinates: { lat: number; lng: number } | null } | null;
  visibility: "public" | "unlisted" | "private";
  status: "PUBLISHED" | "INCOMPLETE";
  accessRules: unknown[];
  createdAt: string;
  updatedAt: string;
}

export interface EventPage {
  items: EventItem[];
  take: number;
  page: number | null;
  nextCursor: string | null;
  hasMore: boolean;
}

let counter = 0;

/** The smallest valid body; the name is unique so derived slugs never collide by accident. */
export function eventBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  counter += 1;
  return {
    name: `Fixture event ${counter} ${Math.random().toString(36).slice(2, 8)}`,
    startsAt: "2026-12-05T19:00:00+01:00",
    endsAt: "2026-12-05T23:30:00+01:00",
    timeZone: "Europe/Berlin",
    ...overrides,
  };
}

export function postEvent(t: TestContext, key: string, body: unknown): Promise<Response> {
  return t.call("/api/v3/events", { method: "POST", key, json: body });
}

/** POST /events; fails loudly unless the service answers 201. */
export async function createEvent(t: TestContext, key: string, overrides: Record<string, unknown> = {}): Promise<EventItem> {
  const response = await postEvent(t, key, eventBody(overrides));
  if (response.status !== 201) throw new Error(`create event: expected 201, got ${response.status} ${await response.text()}`);
  return (await response.json()) as EventItem;
}

export async function getEvent(t: TestContext, key: string, id: string): Promise<Response> {
  return t.call(`/api/v3/events/${id}`, { key });
}

/** One GET /events page; fails loudly unless the service answers 200. */
export async function listPage(t: TestContext, key: string, query: Record<string, string | number> = {}): Promise<EventPage> {
  const qs = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const response = await t.call(`/api/v3/events${qs ? `?${qs}` : ""}`, { key });
  if (response.status !== 200) throw new Error(`list events ?${qs}: expected 200, got ${response.status} ${await response.text()}`);
  return (await response.json()) as EventPage;
}

/** Every page of a listing, following nextCursor; returns the pages in order. */
export async function walkPages(t: TestContext, key: string, query: Record<string, string | number> = {}): Promise<EventPage[]> {
  const pages: EventPage[] = [];
  let cursor: string | null = null;
  do {
    const page: EventPage = await listPage(t, key, cursor ? { ...query, cursor } : query);
    pages.push(page);
    cursor = page.nextCursor;
    if (pages.length > 1000) throw new Error("cursor paging does not end");
  } while (cursor);
  return pages;
}

/** Ids of every listed event (all pages). */
export async function listedIds(t: TestContext, key: string, query: Record<string, string | number> = {}): Promise<string[]> {
  return (await walkPages(t, key, { take: 100, ...query })).flatMap((p) => p.items.map((e) => e.id));
}
