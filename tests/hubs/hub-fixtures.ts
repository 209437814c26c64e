// Requests the hub suites share: creating hubs and events, PUT, join/leave and listing every page.
import { expect } from "vitest";
import type { TestContext } from "../setup/test-context.ts";

export interface Hub {
  id: string;
  ownerId: string;
  membersIDs: string[];
  categorySubEventIDs: string[];
  hubType: "group" | "nftCollection";
  status: "PUBLISHED" | "INCOMPLETE";
  name: string;
  slug: string;
  description: string;
  isPrivate: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface Page<T> {
  items: T[];
  take: number;
  page: number | null;
  nextCursor: string | null;
  hasMore: boolean;
}

let sequence = 0;
const unique = (prefix: string) => `${prefix} ${process.pid} ${++sequence} ${Math.random().toString(36).slice(2, 8)}`;

export async function createHub(t: TestContext, key: string, body: Record<string, unknown> = {}): Promise<Hub> {
  const response = await t.call("/api/v3/hubs", {
    method: "POST",
    key,
    json: { name: unique("Hub"), hubType: "group", status: "PUBLISHED", ...body },
  });
  const created = await response.json();
  if (response.status !== 201) throw new Error(`create hub: ${response.status} ${JSON.stringify(created)}`);
  return created;
}

/** An event of `key`'s owner; PUBLISHED and public unless told otherwise. Returns its id. */
export async function createEvent(t: TestContext, key: string, body: Record<string, unknown> = {}): Promise<string> {
  const response = await t.call("/api/v3/events", {
    method: "POST",
    key,
    json: {
      name: unique("Event"),
      startsAt: "2026-12-05T19:00:00+01:00",
      endsAt: "2026-12-05T23:00:00+01:00",
      timeZone: "Europe/Berlin",
      status: "PUBLISHED",
      visibility: "public",
      ...body,
    },
  });
  const created = await response.json();
  if (response.status !== 201) throw new Error(`create event: ${response.status} ${JSON.stringify(created)}`);
  return created.id;
}

export const putHub = (t: TestContext, key: string, hubId: string, json: unknown) =>
  t.call(`/api/v3/hubs/${hubId}`, { method: "PUT", key, json });

export const getHub = (t: TestContext, key: string, hubId: string) => t.call(`/api/v3/hubs/${hubId}`, { key });

export const joinHub = (t: TestContext, key: string, hubId: string) =>
  t.call(`/api/v3/hubs/${hubId}/members`, { method: "POST", key });

export const leaveHub = (t: TestContext, key: string, hubId: string) =>
  t.call(`/api/v3/hubs/${hubId}/members/me`, { method: "DELETE", key });

export async function readHub(t: TestContext, key: string, hubId: string): Promise<Hub> {
  const response = await getHub(t, key, hubId);
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

export async function listPage(t: TestContext, key: string, query: string): Promise<Page<Hub>> {
  const response = await t.call(`/api/v3/hubs${query ? `?${query}` : ""}`, { key });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

/** Every hub of a listing, following `nextCursor` to the end. */
export async function listAll(t: TestContext, key: string, query = ""): Promise<Hub[]> {
  const items: Hub[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 100; pages++) {
    const params = new URLSearchParams(query);
    if (!params.has("take")) params.set("take", "100");
    if (cursor) params.set("cursor", cursor);
    const page = await listPage(t, key, params.toString());
    items.push(...page.items);
    if (!page.hasMore) return items;
    cursor = page.nextCursor;
  }
  throw new Error("more than 100 pages");
}

export const ids = (hubs: Array<{ id: string }>) => hubs.map((h) => h.id);
