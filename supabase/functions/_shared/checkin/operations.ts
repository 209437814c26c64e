// What can be done at an event's door and with its reservations, for every surface. Every rule is
// decided by the checkin schema's functions as the caller (capacity under the event's lock, one
// entry under the reservation's lock, staff-only scans); this layer verifies what only the gateway
// can (a QR token's signature, an NTAG 424 SUN message's MAC) and reads chains when the database
// asks for NFT evidence (`needs`), then calls again with it. Bodies are the JSON the database writes.
import { randomUUID } from "node:crypto";
import type { z } from "@hono/zod-openapi";
import type { PendingQuery } from "postgres";
import type { Principal } from "../auth/principal.ts";
import type { Config } from "../config.ts";
import type { Tx } from "../db/database.ts";
import { ApiError } from "../http/errors.ts";
import { containsPattern, cursorValue, pageClauses } from "../db/paging.ts";
import { pagingOf, toJsonPage } from "../http/listing.ts";
import { JsonText, noContent, ok, type OperationContext, operation } from "../operations/operation.ts";
import { type AccessRule, type HoldingsNeeded, readEvidence } from "./access.ts";
import { normaliseBraceletUid, SunError, sunKeySetOf, verifySunMessage } from "./bracelet.ts";
import type {
  AddStaffSchema, BindBraceletSchema, OfflineBatchSchema, ReservationListQuery, SaveCheckInSettingsSchema, ScanRequestSchema,
} from "./schemas.ts";
import { publicJwks, signTicket, TicketTokenError, verifyTicket } from "./ticket-token.ts";
import { apiUrl } from "../http/public-urls.ts";

/** The person's own reservations (OAuth scopes of the public MCP endpoint). */
const RESERVATIONS_READ = ["reservations:read"] as const;
const RESERVATIONS_WRITE = ["reservations:write"] as const;
/** The host's and the door staff's work. */
const CHECKIN_READ = ["checkin:read"] as const;
const CHECKIN_WRITE = ["checkin:write"] as const;

type EventRef = { eventId: string };
type ReservationRef = EventRef & { reservationId: string };

/** One statement whose single value (`json`) is the answer, sent on as the database wrote it. */
async function jsonOf(context: OperationContext, statement: (tx: Tx) => PendingQuery<{ json: string }[]>) {
  const [row] = await context.db.statement(statement);
  return ok(new JsonText(row!.json));
}

function ticketKeysOf(config: Config) {
  if (!config.TICKET_SIGNING_KEYS) throw new ApiError(503, "tickets_not_configured", "Tickets are not configured on this service (TICKET_SIGNING_KEYS).");
  return config.TICKET_SIGNING_KEYS;
}

// ---------------------------------------------------------------------------------------------
// Settings and staff
// ---------------------------------------------------------------------------------------------

export const getSettings = operation({
  name: "checkin.settings.get",
  scopes: CHECKIN_READ,
  run: (context, { eventId }: EventRef) => jsonOf(context, (tx) => tx<{ json: string }[]>`select checkin.read_settings(${eventId})::text as json`),
});

export const saveSettings = operation({
  name: "checkin.settings.save",
  scopes: CHECKIN_WRITE,
  run(context, { eventId, settings }: EventRef & { settings: z.output<typeof SaveCheckInSettingsSchema> }) {
    const cleared = Object.entries(settings).filter(([, value]) => value === null).map(([field]) => field);
    return jsonOf(context, (tx) => tx<{ json: string }[]>`
      select checkin.save_settings(${eventId}, ${settings.capacity ?? null}::integer, ${settings.approvalRequired ?? null}::boolean,
        ${settings.waitlistEnabled ?? null}::boolean, ${settings.registrationOpensAt ?? null}::timestamptz,
        ${settings.registrationClosesAt ?? null}::timestamptz, ${cleared}::text[])::text as json`);
  },
});

export const listStaff = operation({
  name: "checkin.staff.list",
  scopes: CHECKIN_READ,
  async run({ db }, { eventId }: EventRef) {
    const rows = await db.statement((tx) => tx<{ staff: string }[]>`select s::text as staff from checkin.list_staff(${eventId}) s`);
    return ok(new JsonText(`{"items":[${rows.map((row) => row.staff).join(",")}]}`));
  },
});

export const addStaff = operation({
  name: "checkin.staff.add",
  scopes: CHECKIN_WRITE,
  async run({ db }, { eventId, person }: EventRef & { person: z.output<typeof AddStaffSchema> }) {
    const [row] = await db.statement((tx) => tx<{ staff: string; created: boolean }[]>`
      select staff::text, created from checkin.add_staff(${eventId}, ${"userId" in person ? person.userId : null}, ${"email" in person ? person.email : null})`);
    return ok(new JsonText(row!.staff), row!.created ? 201 : 200);
  },
});

export const removeStaff = operation({
  name: "checkin.staff.remove",
  scopes: CHECKIN_WRITE,
  async run({ db }, { eventId, userId }: EventRef & { userId: string }) {
    await db.statement((tx) => tx`select checkin.remove_staff(${eventId}, ${userId})`);
    return noContent();
  },
});

// ---------------------------------------------------------------------------------------------
// Reservations and tickets
// ---------------------------------------------------------------------------------------------

/**
 * Reserves a spot for the caller: 201 new, 200 their active reservation as it is. An event with
 * `register` rules has the caller's linked wallets read first (the database says which), then decides.
 */
export const reserve = operation({
  name: "checkin.reservations.reserve",
  scopes: RESERVATIONS_WRITE,
  ownTransactions: true,
  async run(context, { eventId }: EventRef) {
    const attempt = (evidence: unknown) => context.db.statement((tx) => tx<{ reservation: string | null; created: boolean; needs: HoldingsNeeded | null }[]>`
      select reservation::text, created, needs from checkin.reserve(${eventId}, ${evidence === null ? null : tx.json(evidence as never)}::jsonb)`);
    let [row] = await attempt(null);
    if (row!.needs) [row] = await attempt(await readEvidence(context.config, row!.needs));
    return ok(new JsonText(row!.reservation!), row!.created ? 201 : 200);
  },
});

/** Reservations of an event for its owner and staff: filter by status, search name or e-mail, page by cursor. */
export const listEventReservations = operation({
  name: "checkin.reservations.list",
  scopes: CHECKIN_READ,
  async run({ db }, { eventId, query }: EventRef & { query: z.output<typeof ReservationListQuery> }) {
    const paging = pagingOf(query);
    const rows = await db.statement((tx) => {
      const { after, orderAndLimit } = pageClauses(tx, "r", paging);
      return tx<{ item: string; id: string; cursor_value: string }[]>`
        select checkin.reservation_json(r)::text as item, r.id, ${cursorValue(tx, "r", paging)}
        from checkin.reservations r
        where checkin.require_staff(${eventId}) and r.event_id = ${eventId}
          ${query.status ? tx`and r.status = ${query.status}` : tx``}
          ${query.search ? tx`and r.search_text like lower(${containsPattern(query.search)})` : tx``}
          ${after}
        ${orderAndLimit}`;
    });
    return ok(new JsonText(toJsonPage(rows, paging)));
  },
});

export const listMyReservations = operation({
  name: "checkin.reservations.mine",
  scopes: RESERVATIONS_READ,
  async run({ db }, query: z.output<typeof ReservationListQuery>) {
    const paging = pagingOf(query);
    const rows = await db.statement((tx) => {
      const { after, orderAndLimit } = pageClauses(tx, "r", paging);
      return tx<{ item: string; id: string; cursor_value: string }[]>`
        select checkin.reservation_json(r)::text as item, r.id, ${cursorValue(tx, "r", paging)}
        from checkin.reservations r
        where r.user_id = (select core.current_user_id())
          ${query.status ? tx`and r.status = ${query.status}` : tx``}
          ${query.search ? tx`and r.search_text like lower(${containsPattern(query.search)})` : tx``}
          ${after}
        ${orderAndLimit}`;
    });
    return ok(new JsonText(toJsonPage(rows, paging)));
  },
});

const reservationNotFound = (reservationId: string) =>
  new ApiError(404, "reservation_not_found", `No reservation ${reservationId} of this event is visible to you.`);

export const getReservation = operation({
  name: "checkin.reservations.get",
  scopes: [...RESERVATIONS_READ, ...CHECKIN_READ],
  anyScope: true,
  async run({ db }, { eventId, reservationId }: ReservationRef) {
    const [row] = await db.statement((tx) => tx<{ json: string }[]>`
      select checkin.reservation_json(r)::text as json from checkin.reservations r where r.id = ${reservationId} and r.event_id = ${eventId}`);
    if (!row) throw reservationNotFound(reservationId);
    return ok(new JsonText(row.json));
  },
});

export const cancelReservation = operation({
  name: "checkin.reservations.cancel",
  scopes: RESERVATIONS_WRITE,
  run: (context, { eventId, reservationId }: ReservationRef) =>
    jsonOf(context, (tx) => tx<{ json: string }[]>`select checkin.cancel_reservation(${eventId}, ${reservationId})::text as json`),
});

export const approveReservation = operation({
  name: "checkin.reservations.approve",
  scopes: CHECKIN_WRITE,
  run: (context, { eventId, reservationId }: ReservationRef) =>
    jsonOf(context, (tx) => tx<{ json: string }[]>`select checkin.decide_reservation(${eventId}, ${reservationId}, true)::text as json`),
});

export const declineReservation = operation({
  name: "checkin.reservations.decline",
  scopes: CHECKIN_WRITE,
  run: (context, { eventId, reservationId }: ReservationRef) =>
    jsonOf(context, (tx) => tx<{ json: string }[]>`select checkin.decide_reservation(${eventId}, ${reservationId}, false)::text as json`),
});

interface ReservationRow { id: string; event_id: string; user_id: string; status: string; ticket_version: number }

async function ticketFor(config: Config, row: ReservationRow | undefined, reservationId: string) {
  if (!row) throw reservationNotFound(reservationId);
  if (row.status !== "approved") {
    throw new ApiError(409, "reservation_not_approved", `The reservation is ${row.status}: only an approved reservation has a ticket.`);
  }
  const token = await signTicket(ticketKeysOf(config), { reservationId: row.id, eventId: row.event_id, version: row.ticket_version });
  return { reservationId: row.id, eventId: row.event_id, ticketVersion: row.ticket_version, token };
}

/** The caller's ticket for their own approved reservation. */
async function ownTicket({ db, config }: OperationContext, { eventId, reservationId }: ReservationRef) {
  ticketKeysOf(config);
  const [row] = await db.statement((tx) => tx<ReservationRow[]>`
    select id, event_id, user_id, status, ticket_version from checkin.reservations r
    where r.id = ${reservationId} and r.event_id = ${eventId} and r.user_id = (select core.current_user_id())`);
  return ticketFor(config, row, reservationId);
}

/** The person's ticket: a QR token for their approved reservation's current version. */
export const getTicket = operation({
  name: "checkin.tickets.get",
  scopes: RESERVATIONS_READ,
  run: async (context, reservation: ReservationRef) => ok(await ownTicket(context, reservation)),
});

/** Where the ticket page is served; the token follows `#`, so it reaches no server and no log. */
export const TICKET_PAGE_PATH = "/tickets";

/**
 * The person's ticket as a link to the ticket page, which draws the QR code in their browser: what a
 * person's assistant hands on, so the token travels once, inside the link, and the door sees a QR code.
 */
export const getTicketLink = operation({
  name: "checkin.tickets.link",
  scopes: RESERVATIONS_READ,
  async run(context, reservation: ReservationRef) {
    const ticket = await ownTicket(context, reservation);
    return ok({
      url: `${apiUrl(context.config, TICKET_PAGE_PATH)}#${ticket.token}`,
      reservationId: ticket.reservationId,
      ticketVersion: ticket.ticketVersion,
      expiresNote: "The link does not expire: it admits while the reservation stays approved and this is its newest ticket " +
        "version. Re-issuing the ticket, cancelling or being declined revokes it.",
    });
  },
});

/** A new ticket version for the person (a lost phone, a shared screenshot); the old QR code is revoked. */
export const reissueTicket = operation({
  name: "checkin.tickets.reissue",
  scopes: RESERVATIONS_WRITE,
  async run({ db, config }, { eventId, reservationId }: ReservationRef) {
    ticketKeysOf(config);
    const [row] = await db.statement((tx) => tx<ReservationRow[]>`
      select r ->> 'id' as id, r ->> 'eventId' as event_id, r ->> 'userId' as user_id, r ->> 'status' as status,
        (r ->> 'ticketVersion')::integer as ticket_version
      from checkin.reissue_ticket(${eventId}, ${reservationId}) r`);
    return ok(await ticketFor(config, row, reservationId));
  },
});

export const ticketKeys = operation({
  name: "checkin.tickets.keys",
  scopes: CHECKIN_READ,
  run: async ({ config }) => ok(publicJwks(ticketKeysOf(config))),
});

/**
 * Which of the event's grants the caller's linked wallets give now: every access rule read from its
 * chain, the reads kept (they decide `view` in listings for a day and `register` for a few seconds).
 */
export const getAccess = operation({
  name: "checkin.access.get",
  scopes: RESERVATIONS_READ,
  ownTransactions: true,
  async run(context, { eventId }: EventRef) {
    const [event] = await context.db.statement((tx) => tx<{ rules: AccessRule[]; addresses: Record<string, string[]> }[]>`
      select e.access_rules as rules, checkin.my_addresses() as addresses
      from community.events e where e.id = ${eventId}`);
    if (!event) throw new ApiError(404, "event_not_found", `No event ${eventId} is visible to you.`);
    const rules = event.rules.map((rule, index) => ({ ...rule, index }));
    const evidence = rules.length ? await readEvidence(context.config, { grant: "any", rules, addresses: event.addresses }) : [];
    await context.db.statement((tx) => tx`select checkin.remember_my_holdings(${tx.json(evidence as never)}::jsonb)`);
    const grants = (grant: string) => {
      const granting = evidence.filter((read) => read.rule.grants.includes(grant));
      return granting.length === 0 || granting.some((read) => "satisfied" in read && read.satisfied);
    };
    return ok({ eventId, view: grants("view"), register: grants("register"), checkIn: grants("checkIn"), evidence });
  },
});

// ---------------------------------------------------------------------------------------------
// The door
// ---------------------------------------------------------------------------------------------

type ScanInput = Pick<z.output<typeof ScanRequestSchema>, "method" | "ticket" | "reservationId" | "braceletUid" | "sun">;

/** The credential fields of a scan, none given (a QR code or SUN message that did not verify, offline). */
const NO_CREDENTIAL = { reservationId: null, ticketVersion: null, braceletUid: null, sunCounter: null, sunKeySet: null };

/** The credential as the database takes it, after the gateway verified what it signs or MACs. */
async function credentialOf(config: Config, scan: ScanInput) {
  switch (scan.method) {
    case "qr":
      try {
        const ticket = await verifyTicket(ticketKeysOf(config), scan.ticket!);
        return { ...NO_CREDENTIAL, reservationId: ticket.reservationId, ticketVersion: ticket.version };
      } catch (error) {
        if (error instanceof TicketTokenError) throw new ApiError(422, error.code, `The QR code is not a valid ticket: ${error.message}`);
        throw error;
      }
    case "manual":
      return { ...NO_CREDENTIAL, reservationId: scan.reservationId! };
    case "bracelet": {
      if (scan.braceletUid !== undefined) {
        const uid = normalisedUid(scan.braceletUid);
        return { ...NO_CREDENTIAL, braceletUid: uid };
      }
      if (!config.BRACELET_SUN_KEYS) throw new ApiError(503, "sun_not_configured", "NTAG 424 bracelets are not configured on this service (BRACELET_SUN_KEYS).");
      try {
        const reading = verifySunMessage(scan.sun!, config.BRACELET_SUN_KEYS);
        return { ...NO_CREDENTIAL, braceletUid: reading.uid, sunCounter: reading.counter, sunKeySet: sunKeySetOf(config.BRACELET_SUN_KEYS) };
      } catch (error) {
        if (error instanceof SunError) throw new ApiError(422, error.code, `The bracelet's SUN message is not valid: ${error.message}`);
        throw error;
      }
    }
  }
}

function normalisedUid(uid: string): string {
  try {
    return normaliseBraceletUid(uid);
  } catch (error) {
    throw new ApiError(400, "invalid_bracelet_uid", (error as Error).message);
  }
}

/**
 * One scan at the door: admitted or why not, recorded once per device and nonce. An entry to an
 * event with `checkIn` rules reads the attendee's wallets first: the database asks, then decides.
 */
export const scan = operation({
  name: "checkin.scan",
  scopes: CHECKIN_WRITE,
  ownTransactions: true,
  async run(context, { eventId, scan: request }: EventRef & { scan: z.output<typeof ScanRequestSchema> }) {
    const credential = await credentialOf(context.config, request);
    const attempt = (evidence: unknown) => context.db.statement((tx) => tx<{ scan: string | null; needs: HoldingsNeeded | null }[]>`
      select scan::text, needs from checkin.scan(${eventId}, ${request.method}, ${credential.reservationId}, ${credential.ticketVersion}::integer,
        ${credential.braceletUid}, ${credential.sunCounter}::integer, ${request.direction}, ${request.deviceId}, ${request.nonce},
        now(), ${evidence === null ? null : tx.json(evidence as never)}::jsonb, false, ${credential.sunKeySet})`);
    let [row] = await attempt(null);
    if (row!.needs) [row] = await attempt(await readEvidence(context.config, row!.needs));
    return ok(new JsonText(row!.scan!));
  },
});

/**
 * A check-in by reservation id from a person's assistant, which has no camera or NFC reader: the
 * `manual` method only, so no QR token or bracelet UID pasted into a conversation (or planted in an
 * event's description) ever admits anyone. Its scans are recorded under the assistant's grant as
 * the device, so its nonces never meet another device's; without a nonce, each call is a new scan.
 */
export const checkInByReservation = operation({
  name: "checkin.scan.by_reservation",
  scopes: CHECKIN_WRITE,
  ownTransactions: true,
  run: (context, { eventId, reservationId, direction, nonce }: ReservationRef & { direction: "entry" | "exit"; nonce?: string }) =>
    scan.run(context, {
      eventId,
      scan: { method: "manual", reservationId, direction, nonce: nonce ?? randomUUID(), deviceId: assistantDeviceOf(context.principal) },
    }),
});

function assistantDeviceOf(principal: Principal): string {
  return principal.kind === "oauth" ? `assistant-${principal.grantId}` : "assistant";
}

/**
 * Scans a device made offline, uploaded at once. QR tokens and SUN messages are verified here; one
 * that fails is recorded as `unknown` (the device may have let its bearer in: the record says so).
 * The rest are decided in the order they were made, NFT rules by the reads on record.
 */
export const recordOfflineScans = operation({
  name: "checkin.scans.offline",
  scopes: CHECKIN_WRITE,
  async run(context, { eventId, batch }: EventRef & { batch: z.output<typeof OfflineBatchSchema> }) {
    const scans = await Promise.all(batch.scans.map(async (item) => {
      const credential = await credentialOf(context.config, item).catch((error) => {
        if (error instanceof ApiError && error.status < 500) return NO_CREDENTIAL;
        throw error;
      });
      return { ...credential, method: item.method, direction: item.direction, nonce: item.nonce, scannedAt: item.scannedAt };
    }));
    const rows = await context.db.statement((tx) => tx<{ scan: string; result: string; replayed: boolean }[]>`
      select s::text as scan, s ->> 'result' as result, (s ->> 'replayed')::boolean as replayed
      from checkin.record_offline_scans(${eventId}, ${batch.deviceId}, ${tx.json(scans as never)}::jsonb) s`);
    const admitted = rows.filter((row) => row.result === "admitted" || row.result === "exited").length;
    const replayed = rows.filter((row) => row.replayed).length;
    return ok(new JsonText(`{"items":[${rows.map((row) => row.scan).join(",")}],"admitted":${admitted},` +
      `"refused":${rows.length - admitted},"replayed":${replayed}}`));
  },
});

export const undoScan = operation({
  name: "checkin.scans.undo",
  scopes: CHECKIN_WRITE,
  run: (context, { eventId, scanId }: EventRef & { scanId: string }) =>
    jsonOf(context, (tx) => tx<{ json: string }[]>`select checkin.undo_scan(${eventId}, ${scanId})::text as json`),
});

export const counts = operation({
  name: "checkin.counts",
  scopes: CHECKIN_READ,
  run: (context, { eventId }: EventRef) => jsonOf(context, (tx) => tx<{ json: string }[]>`select checkin.counts(${eventId})::text as json`),
});

/** Everything an offline scanner needs: the public ticket keys and every approved ticket's version and bracelets. */
export const manifest = operation({
  name: "checkin.manifest",
  scopes: CHECKIN_READ,
  async run({ db, config }, { eventId }: EventRef) {
    const keys = publicJwks(ticketKeysOf(config));
    const [row] = await db.statement((tx) => tx<{ json: string }[]>`
      select checkin.manifest(${eventId}, ${tx.json(keys as never)}::json)::text as json`);
    return ok(new JsonText(row!.json));
  },
});

// ---------------------------------------------------------------------------------------------
// Bracelets
// ---------------------------------------------------------------------------------------------

export const bindBracelet = operation({
  name: "checkin.bracelets.bind",
  scopes: CHECKIN_WRITE,
  async run({ db }, { eventId, bracelet }: EventRef & { bracelet: z.output<typeof BindBraceletSchema> }) {
    const uid = normalisedUid(bracelet.uid);
    const [row] = await db.statement((tx) => tx<{ bracelet: string; created: boolean }[]>`
      select bracelet::text, created from checkin.bind_bracelet(${eventId}, ${bracelet.reservationId}, ${uid}, ${bracelet.kind})`);
    return ok(new JsonText(row!.bracelet), row!.created ? 201 : 200);
  },
});

const releaseBracelet = (name: string, status: "unbound" | "lost") => operation({
  name,
  scopes: CHECKIN_WRITE,
  run: (context, { eventId, braceletId }: EventRef & { braceletId: string }) =>
    jsonOf(context, (tx) => tx<{ json: string }[]>`select checkin.release_bracelet(${eventId}, ${braceletId}, ${status})::text as json`),
});

export const unbindBracelet = releaseBracelet("checkin.bracelets.unbind", "unbound");
export const markBraceletLost = releaseBracelet("checkin.bracelets.lost", "lost");
