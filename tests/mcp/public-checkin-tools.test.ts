// The public MCP endpoint's reservation and check-in tools with a real MCP Client and OAuth access
// tokens: a grant with the reservations scopes serves the person (reserve, list, show the ticket as
// a link, cancel) and none of the door's tools; a grant with the check-in scopes lets the event's
// staff check the person in by reservation id, read the counts and undo; anyone else is refused by
// the event's own rule (not_event_staff), whatever their scopes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { MCP_SCOPES } from "../../supabase/functions/_shared/auth/mcp-oauth.ts";
import { generateTicketSigningKey, parseTicketSigningKeys, verifyTicket } from "../../supabase/functions/_shared/checkin/ticket-token.ts";
import { createApiKey } from "../../scripts/lib/admin-operations.ts";
import { eventBody } from "../events/event-fixtures.ts";
import { createOAuthTestContext, type IssuedTokens, issueTokens, mcpRequest, type OAuthTestContext, RESOURCE, ROOT } from "./oauth-fixtures.ts";
import { toolError } from "./mcp-fixtures.ts";

const RESERVATIONS = ["reservations:read", "reservations:write"];
const CHECK_IN = ["checkin:read", "checkin:write"];

let ctx: OAuthTestContext;
let ticketKeys: string;
let attendee: IssuedTokens;
let staff: IssuedTokens;
let stranger: IssuedTokens;
let hostKey: string;
let eventId: string;

const connect = async (token: string) => {
  const client = new Client({ name: "public-checkin-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(RESOURCE), { fetch: ctx.fetch, requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
};
type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content?: Array<{ type: string; text?: string }> };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as Result;
const rest = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
  const response = await ctx.call(path, { key: hostKey, ...init });
  return { status: response.status, body: response.status === 204 ? null : await response.json() };
};
const userIdOf = async (email: string) => (await ctx.owner<{ id: string }[]>`select id from core.users where email = ${email}`)[0]!.id;

beforeAll(async () => {
  ticketKeys = await generateTicketSigningKey();
  ctx = await createOAuthTestContext({ TICKET_SIGNING_KEYS: ticketKeys });
  attendee = await issueTokens(ctx, "ada@example.com", RESERVATIONS);
  staff = await issueTokens(ctx, "sam@example.com", CHECK_IN);
  stranger = await issueTokens(ctx, "bob@example.com", [...MCP_SCOPES]);
  await issueTokens(ctx, "hana@example.com", ["events:read"]); // the host signs in once, which makes her account
  hostKey = (await createApiKey(ctx.adminDb, { userId: await userIdOf("hana@example.com"), name: "host", permissions: {} })).key;
  const created = await rest("/api/v3/events", { method: "POST", json: eventBody({ status: "PUBLISHED" }) });
  eventId = created.body.id;
  expect((await rest(`/api/v3/events/${eventId}/staff`, { method: "POST", json: { email: "sam@example.com" } })).status).toBe(201);
});
afterAll(async () => {
  await ctx?.close();
});

describe("the person's reservations", () => {
  it("a grant with only reservations:* lists the person's tools and none of the door's", async () => {
    const client = await connect(attendee.access_token);
    expect((await client.listTools()).tools.map((t) => t.name).sort())
      .toEqual(["cancel_reservation", "get_event_access", "get_my_ticket_link", "get_reservation", "list_my_reservations", "reserve_spot"]);
    for (const name of ["list_event_reservations", "check_in_by_reservation", "undo_check_in", "get_check_in_counts"]) {
      const refused = await mcpRequest(ctx, { authorization: `Bearer ${attendee.access_token}`, "mcp-protocol-version": "2025-11-25" },
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: { eventId } } });
      expect(refused.status, name).toBe(403);
      expect(await refused.json(), name).toMatchObject({ code: "insufficient_scope" });
    }
    await client.close();
  });

  it("reserves, lists, and shows the ticket as a link whose fragment is a ticket the door accepts", async () => {
    const client = await connect(attendee.access_token);
    const reservation = (await call(client, "reserve_spot", { eventId })).structuredContent!;
    expect(reservation).toMatchObject({ eventId, userId: await userIdOf("ada@example.com"), status: "approved" });
    const reservationId = reservation.id as string;
    expect((await call(client, "list_my_reservations")).structuredContent).toMatchObject({ items: [{ id: reservationId }] });
    expect(await call(client, "get_event_access", { eventId })).toMatchObject({ structuredContent: { view: true, register: true, checkIn: true } });

    const shown = await call(client, "get_my_ticket_link", { eventId, reservationId });
    expect(shown.isError, JSON.stringify(shown)).toBeFalsy();
    const { url, ...details } = shown.structuredContent! as { url: string };
    expect(details).toEqual({ reservationId, ticketVersion: 1, expiresNote: expect.stringContaining("Re-issuing") });
    const link = new URL(url);
    expect(`${link.origin}${link.pathname}${link.search}`).toBe(`${ROOT}/tickets`);
    const token = link.hash.slice(1);
    expect(await verifyTicket(parseTicketSigningKeys(ticketKeys), token)).toMatchObject({ reservationId, eventId, version: 1 });
    // The token appears once in what the assistant reads, inside the link; the audit keeps only the arguments.
    const text = shown.content!.map((c) => c.text).join("\n");
    expect(text.split(token)).toHaveLength(2);
    expect(text).toContain(`/tickets#${token}`);
    expect(JSON.stringify(await ctx.owner`select arguments from mcp.tool_calls where tool = 'get_my_ticket_link'`)).not.toContain(token);
    await client.close();
  });

  it("cancels: the ticket is gone, and another person's reservation is not theirs to show", async () => {
    const client = await connect(attendee.access_token);
    const other = (await rest(`/api/v3/events/${eventId}/reservations`, { method: "POST" })).body; // the host's own reservation
    expect(await call(client, "get_my_ticket_link", { eventId, reservationId: other.id }))
      .toMatchObject(toolError("reservation_not_found"));
    const mine = (await call(client, "reserve_spot", { eventId })).structuredContent!.id as string;
    expect((await call(client, "cancel_reservation", { eventId, reservationId: mine })).structuredContent).toMatchObject({ status: "cancelled" });
    expect(await call(client, "get_my_ticket_link", { eventId, reservationId: mine }))
      .toMatchObject(toolError("reservation_not_approved"));
    await client.close();
  });
});

describe("the door through an assistant", () => {
  it("staff with checkin:* check the person in by reservation id, read the counts and undo", async () => {
    const person = await connect(attendee.access_token);
    const reservationId = (await call(person, "reserve_spot", { eventId })).structuredContent!.id as string;
    const door = await connect(staff.access_token);
    expect((await door.listTools()).tools.map((t) => t.name).sort()).toEqual([
      "approve_reservation", "bind_bracelet", "check_in_by_reservation", "decline_reservation", "get_check_in_counts", "get_reservation",
      "list_event_reservations", "undo_check_in",
    ]);
    const attendees = (await call(door, "list_event_reservations", { eventId, status: "approved", search: "ada" })).structuredContent!;
    expect(attendees.items).toEqual([expect.objectContaining({ id: reservationId, attendeeName: "ada@example.com" })]);

    const checkIn = { eventId, reservationId, nonce: "assistant-0001" };
    const admitted = (await call(door, "check_in_by_reservation", checkIn)).structuredContent!;
    expect(admitted).toMatchObject({ reservationId, method: "manual", direction: "entry", result: "admitted", admitted: true, replayed: false });
    const [grant] = await ctx.owner<{ id: string }[]>`select id from mcp_oauth.grants where client_id = ${staff.clientId}`;
    expect(admitted.deviceId).toBe(`assistant-${grant!.id}`);
    expect((await call(door, "check_in_by_reservation", checkIn)).structuredContent, "a retry with its nonce").toMatchObject({ id: admitted.id, replayed: true });
    expect((await call(door, "check_in_by_reservation", { eventId, reservationId })).structuredContent, "a new scan")
      .toMatchObject({ result: "already_inside", admitted: false });
    expect((await call(door, "get_check_in_counts", { eventId })).structuredContent).toMatchObject({ checkedIn: 1, insideNow: 1 });
    expect((await call(door, "get_reservation", { eventId, reservationId })).structuredContent).toMatchObject({ inside: true });

    expect((await call(door, "undo_check_in", { eventId, scanId: admitted.id })).structuredContent).toMatchObject({ undoneAt: expect.any(String) });
    expect((await call(door, "get_check_in_counts", { eventId })).structuredContent).toMatchObject({ checkedIn: 0, insideNow: 0 });
    expect((await call(door, "bind_bracelet", { eventId, reservationId, uid: "04A23B4C5D6E7F" })).structuredContent).toMatchObject({ status: "bound" });

    // No QR token or bracelet through an assistant: the arguments are a reservation only.
    const ticket = new URL((await call(person, "get_my_ticket_link", { eventId, reservationId })).structuredContent!.url as string).hash.slice(1);
    expect(await call(door, "check_in_by_reservation", { eventId, reservationId, method: "qr", ticket }))
      .toMatchObject(toolError("validation_failed"));
    // Staff do not decide reservations: the host's rule.
    expect(await call(door, "decline_reservation", { eventId, reservationId })).toMatchObject(toolError("not_event_owner"));
    await Promise.all([person.close(), door.close()]);
  });

  it("a person cannot check anyone in at someone else's event: 403 not_event_staff as a tool error", async () => {
    const person = await connect(attendee.access_token);
    const reservationId = (await call(person, "reserve_spot", { eventId })).structuredContent!.id as string;
    const other = await connect(stranger.access_token);
    expect(await call(other, "check_in_by_reservation", { eventId, reservationId }))
      .toMatchObject(toolError("not_event_staff"));
    expect(await call(other, "list_event_reservations", { eventId })).toMatchObject(toolError("not_event_staff"));
    expect(await ctx.owner`select outcome, error_code, http_status from mcp.tool_calls
      where client_id = ${stranger.clientId} and tool = 'check_in_by_reservation'`)
      .toEqual([{ outcome: "error", error_code: "not_event_staff", http_status: 403 }]);
    expect((await rest(`/api/v3/events/${eventId}/check-in/counts`)).body).toMatchObject({ insideNow: 0 });
    await Promise.all([person.close(), other.close()]);
  });
});
