// The backend MCP endpoint's reservation and check-in tools with a real MCP client and API keys:
// a guest reserves and takes their ticket, the host scans it at the door, reads the counts and
// undoes the admission; every answer is what REST answers the same key, and the annotations say
// what each tool does (written out here, not read from the code under test).
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateTicketSigningKey, parseTicketSigningKeys, verifyTicket } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { eventBody } from "../events/event-fixtures.ts";
import { createTestContext, type TestContext, type UserWithKey } from "../setup/test-context.ts";
import { connectClient, inProcessFetch, toolError } from "./mcp-fixtures.ts";

const URL_ = "http://localhost/mcp/backend";
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const ADD_ONCE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const TAKES_AWAY = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const EXPECTED_ANNOTATIONS: Record<string, Record<string, boolean>> = {
  reserve_spot: { ...ADD_ONCE, openWorldHint: true },
  cancel_reservation: TAKES_AWAY,
  list_my_reservations: READ,
  get_reservation: READ,
  get_my_ticket: READ,
  reissue_ticket: { ...TAKES_AWAY, idempotentHint: false },
  get_event_access: { ...READ, openWorldHint: true },
  list_event_reservations: READ,
  approve_reservation: ADD_ONCE,
  decline_reservation: TAKES_AWAY,
  check_in: { ...ADD_ONCE, openWorldHint: true },
  record_offline_scans: ADD_ONCE,
  undo_check_in: TAKES_AWAY,
  get_check_in_counts: READ,
  get_check_in_manifest: READ,
  get_check_in_settings: READ,
  save_check_in_settings: TAKES_AWAY,
  list_check_in_staff: READ,
  add_check_in_staff: ADD_ONCE,
  remove_check_in_staff: { ...TAKES_AWAY, idempotentHint: false },
  bind_bracelet: ADD_ONCE,
  unbind_bracelet: TAKES_AWAY,
  mark_bracelet_lost: TAKES_AWAY,
};

let t: TestContext;
let ticketKeys: string;
let host: UserWithKey;
let guest: UserWithKey;
let hostClient: Client;
let guestClient: Client;
let eventId: string;

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: unknown };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;
const rest = async (path: string, key: string, init: RequestInit & { json?: unknown } = {}) => {
  const response = await t.call(path, { key, ...init });
  return { status: response.status, body: response.status === 204 ? null : await response.json() };
};

beforeAll(async () => {
  ticketKeys = await generateTicketSigningKey();
  t = await createTestContext({ TICKET_SIGNING_KEYS: ticketKeys });
  host = await t.userWithKey([], { email: "host@example.com" });
  guest = await t.userWithKey([], { email: "guest@example.com" });
  hostClient = await connectClient(URL_, { headers: { "x-api-key": host.key }, fetch: inProcessFetch(t.app) });
  guestClient = await connectClient(URL_, { headers: { "x-api-key": guest.key }, fetch: inProcessFetch(t.app) });
  eventId = (await call(hostClient, "create_event", eventBody({ status: "PUBLISHED" }))).structuredContent!.id as string;
});
afterAll(async () => {
  await Promise.all([hostClient?.close(), guestClient?.close()]);
  await t?.close();
});

describe("tools/list", () => {
  it("lists every reservation and check-in tool with its annotations and schemas", async () => {
    const byName = Object.fromEntries((await hostClient.listTools()).tools.map((tool) => [tool.name, tool]));
    for (const [name, annotations] of Object.entries(EXPECTED_ANNOTATIONS)) {
      expect(byName[name], name).toBeDefined();
      expect(byName[name]!.annotations, name).toEqual({ title: byName[name]!.title, ...annotations });
      expect(byName[name]!.outputSchema, name).toBeDefined();
    }
    // Path parameters and the body are one set of arguments.
    expect(byName.check_in!.inputSchema.required).toEqual(expect.arrayContaining(["eventId", "method", "deviceId", "nonce"]));
    expect(byName.bind_bracelet!.inputSchema.required).toEqual(expect.arrayContaining(["eventId", "reservationId", "uid"]));
  });
});

describe("a reservation from the guest's key to the host's door", () => {
  it("reserve → ticket → check in → counts → undo, each answering what REST answers", async () => {
    const reserved = await call(guestClient, "reserve_spot", { eventId });
    expect(reserved.isError, JSON.stringify(reserved)).toBeFalsy();
    const reservation = reserved.structuredContent!;
    expect(reservation).toMatchObject({ eventId, userId: guest.id, status: "approved", ticketVersion: 1, inside: false });
    const reservationId = reservation.id as string;
    expect((await call(guestClient, "reserve_spot", { eventId })).structuredContent, "reserving again: the same reservation").toEqual(reservation);
    expect((await rest(`/api/v3/events/${eventId}/reservations/${reservationId}`, guest.key)).body).toEqual(reservation);

    const ticket = (await call(guestClient, "get_my_ticket", { eventId, reservationId })).structuredContent!;
    expect(ticket).toMatchObject({ reservationId, eventId, ticketVersion: 1 });
    expect(await verifyTicket(parseTicketSigningKeys(ticketKeys), ticket.token as string)).toMatchObject({ reservationId, eventId, version: 1 });

    const scan = { eventId, method: "qr", ticket: ticket.token, deviceId: "door-1", nonce: "mcp-scan-0001" };
    const admitted = (await call(hostClient, "check_in", scan)).structuredContent!;
    expect(admitted).toMatchObject({ reservationId, method: "qr", direction: "entry", result: "admitted", admitted: true, attendeeName: "guest@example.com", replayed: false });
    expect((await call(hostClient, "check_in", scan)).structuredContent, "the same device and nonce").toMatchObject({ id: admitted.id, replayed: true });
    // The QR token is a bearer credential: the audit keeps the call without it.
    expect(JSON.stringify(await t.owner`select arguments from mcp.tool_calls where tool = 'check_in'`)).not.toContain(ticket.token as string);

    const counts = (await call(hostClient, "get_check_in_counts", { eventId })).structuredContent!;
    expect(counts).toMatchObject({ eventId, approved: 1, checkedIn: 1, insideNow: 1 });
    expect((await rest(`/api/v3/events/${eventId}/check-in/counts`, host.key)).body).toEqual(counts);

    const undone = (await call(hostClient, "undo_check_in", { eventId, scanId: admitted.id })).structuredContent!;
    expect(undone).toMatchObject({ id: admitted.id, result: "admitted", undoneAt: expect.any(String) });
    expect((await call(hostClient, "get_check_in_counts", { eventId })).structuredContent).toMatchObject({ checkedIn: 0, insideNow: 0 });

    // The guest is no door staff: REST's 403 as a tool error.
    expect(await call(guestClient, "check_in", { ...scan, nonce: "mcp-scan-0002" }))
      .toMatchObject(toolError("not_event_staff"));
    // One credential per method, as REST validates it.
    expect(await call(hostClient, "check_in", { ...scan, method: "manual" }))
      .toMatchObject(toolError("validation_failed"));
  });

  it("the host's lists, settings, staff, manifest, offline scans and bracelets answer what REST answers", async () => {
    const reservationId = (await call(guestClient, "reserve_spot", { eventId })).structuredContent!.id as string;
    const listed = await call(hostClient, "list_event_reservations", { eventId, status: "approved", take: 5 });
    expect(listed.structuredContent).toEqual((await rest(`/api/v3/events/${eventId}/reservations?status=approved&take=5`, host.key)).body);
    expect(await call(hostClient, "list_event_reservations", { eventId, limit: 5 }), "REST's refusal of a look-alike parameter")
      .toMatchObject(toolError("limit_not_supported"));
    expect((await call(guestClient, "list_my_reservations", {})).structuredContent).toEqual((await rest("/api/v3/me/reservations", guest.key)).body);

    const saved = await call(hostClient, "save_check_in_settings", { eventId, settings: { capacity: 10, approvalRequired: false } });
    expect(saved.structuredContent).toMatchObject({ eventId, capacity: 10, approvalRequired: false });
    expect((await call(hostClient, "get_check_in_settings", { eventId })).structuredContent).toEqual(saved.structuredContent);

    const staff = await t.userWithKey([], { email: "door@example.com" });
    expect((await call(hostClient, "add_check_in_staff", { eventId, person: { email: "door@example.com" } })).structuredContent)
      .toMatchObject({ eventId, userId: staff.id, role: "checker" });
    expect((await call(hostClient, "list_check_in_staff", { eventId })).structuredContent).toEqual((await rest(`/api/v3/events/${eventId}/staff`, host.key)).body);
    expect((await call(hostClient, "remove_check_in_staff", { eventId, userId: staff.id })).structuredContent).toEqual({});
    expect((await rest(`/api/v3/events/${eventId}/staff`, host.key)).body).toEqual({ items: [] });

    const manifest = (await call(hostClient, "get_check_in_manifest", { eventId })).structuredContent!;
    expect(manifest).toMatchObject({ eventId, tickets: [{ reservationId, ticketVersion: 1 }] });
    expect((manifest.keys as { keys: unknown[] }).keys).toHaveLength(1);

    const bracelet = (await call(hostClient, "bind_bracelet", { eventId, reservationId, uid: "04:a2:3b:4c:5d:6e:7f" })).structuredContent!;
    expect(bracelet).toMatchObject({ reservationId, uid: "04A23B4C5D6E7F", kind: "plain", status: "bound" });
    const batch = { eventId, deviceId: "door-2", scans: [{ method: "bracelet", braceletUid: "04A23B4C5D6E7F", nonce: "offline-0001", scannedAt: new Date().toISOString() }] };
    const recorded = (await call(hostClient, "record_offline_scans", batch)).structuredContent!;
    expect(recorded).toMatchObject({ admitted: 1, refused: 0, replayed: 0, items: [{ method: "bracelet", result: "admitted", offline: true }] });
    expect((await call(hostClient, "record_offline_scans", batch)).structuredContent, "the same batch again").toMatchObject({ replayed: 1 });
    expect((await call(hostClient, "mark_bracelet_lost", { eventId, braceletId: bracelet.id })).structuredContent).toMatchObject({ status: "lost" });
    expect((await rest(`/api/v3/events/${eventId}/check-in/manifest`, host.key)).body.tickets[0].braceletUids).toEqual([]);
  });

  it("the guest re-issues (the old QR code is revoked), reads their access and cancels", async () => {
    const reservationId = (await call(guestClient, "reserve_spot", { eventId })).structuredContent!.id as string;
    const old = (await call(guestClient, "get_my_ticket", { eventId, reservationId })).structuredContent!.token;
    const reissued = (await call(guestClient, "reissue_ticket", { eventId, reservationId })).structuredContent!;
    expect(reissued.ticketVersion).toBeGreaterThan(1);
    const stale = await call(hostClient, "check_in", { eventId, method: "qr", ticket: old, direction: "exit", deviceId: "door-1", nonce: "mcp-stale-01" });
    expect(stale.structuredContent).toMatchObject({ result: "revoked", admitted: false });

    expect((await call(guestClient, "get_event_access", { eventId })).structuredContent)
      .toEqual({ eventId, view: true, register: true, checkIn: true, evidence: [] });
    const cancelled = (await call(guestClient, "cancel_reservation", { eventId, reservationId })).structuredContent!;
    expect(cancelled).toMatchObject({ id: reservationId, status: "cancelled" });
    expect(await call(guestClient, "get_my_ticket", { eventId, reservationId }))
      .toMatchObject(toolError("reservation_not_approved"));
  });

  it("the host approves and declines when reservations need approval", async () => {
    const gated = (await call(hostClient, "create_event", eventBody({ status: "PUBLISHED" }))).structuredContent!.id as string;
    await call(hostClient, "save_check_in_settings", { eventId: gated, settings: { approvalRequired: true } });
    const pending = (await call(guestClient, "reserve_spot", { eventId: gated })).structuredContent!;
    expect(pending.status).toBe("pending");
    const args = { eventId: gated, reservationId: pending.id };
    expect(await call(guestClient, "approve_reservation", args)).toMatchObject(toolError("not_event_owner"));
    expect((await call(hostClient, "approve_reservation", args)).structuredContent).toMatchObject({ status: "approved" });
    expect((await call(hostClient, "decline_reservation", args)).structuredContent).toMatchObject({ status: "declined" });
    expect((await rest(`/api/v3/events/${gated}/reservations/${pending.id}`, guest.key)).body).toMatchObject({ status: "declined" });
  });
});
