// The event's shapes: what a caller sends (create, change, list) and what every surface answers.
// Times are RFC 3339 instants (Instant); access rules are stored here and enforced by check-in.
import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../http/listing.ts";
import { Instant, ObjectId } from "../http/openapi.ts";
import { SUI_NETWORKS } from "../sui/network.ts";

export const Slug = z.string().min(1).max(120).regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "lowercase letters, digits and single dashes")
  .openapi({ example: "berlin-web3-night" });
export const Status = z.enum(["PUBLISHED", "INCOMPLETE"]);
const timestamp = z.string().openapi({ format: "date-time" });

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    // The database's rule (community.is_time_zone): Area/Location names and UTC.
    return zone === "UTC" || /^[A-Za-z]+(\/[A-Za-z0-9_+-]+)+$/.test(zone);
  } catch {
    return false;
  }
};

const Coordinates = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }).openapi("Coordinates");

export const AddressSchema = z
  .object({
    line1: z.string().min(1).max(200).optional(),
    line2: z.string().min(1).max(200).optional(),
    city: z.string().min(1).max(120).optional(),
    region: z.string().min(1).max(120).optional(),
    postalCode: z.string().min(1).max(20).optional(),
    country: z.string().regex(/^[A-Z]{2}$/, "ISO 3166-1 alpha-2 code").optional(),
  })
  .strict()
  .openapi("Address");

const Venue = z
  .object({ name: z.string().min(1).max(200), address: AddressSchema, coordinates: Coordinates.nullable().default(null) })
  .strict()
  .openapi("Venue", { description: "Where the event happens; suggestions come from GET /api/v3/adresses/autocomplete." });

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const SUI_ADDRESS = /^0x[0-9a-fA-F]{1,64}(::[A-Za-z_][A-Za-z0-9_]*::[A-Za-z_][A-Za-z0-9_]*)?$/;
// A uint256 in decimal, written one way only (no sign, no leading zeros), so one token has one spelling.
const UINT256_DECIMAL = /^(0|[1-9][0-9]{0,77})$/;
const UINT256_DECIMAL_LIMIT = 2n ** 256n;
/** Below 2^256; a value that is not decimal digits is left to the pattern's message. */
const fitsIn256Bits = (id: string) => !UINT256_DECIMAL.test(id) || BigInt(id) < UINT256_DECIMAL_LIMIT;

export const AccessRule = z
  .object({
    chain: z.enum(["evm", "sui"]),
    chainId: z.union([z.number().int().positive(), z.enum(SUI_NETWORKS)]).openapi({
      description: "EVM: the numeric chain id. Sui: `sui:mainnet`, `sui:testnet`, `sui:devnet` or `sui:localnet` (a local network, for development).",
    }),
    collection: z.string().openapi({
      description: "EVM: the collection contract address, an ERC-721 contract (or an ERC-1155 one, with `tokenId`). " +
        "Sui: the collection object id (passes of the service's event_pass package that name it), or a Move type " +
        "`0x…::module::Type` whose every object counts as a pass.",
    }),
    tokenId: z.string().regex(UINT256_DECIMAL, "a token id in decimal digits, without leading zeros")
      .refine(fitsIn256Bits, "a token id fits in 256 bits")
      .optional()
      .openapi({
        description: "EVM only. Present: the collection is an ERC-1155 contract and holding means units of this token id " +
          "(`balanceOf(owner, id)`), written in decimal (ids are 256-bit). Absent: an ERC-721 contract (`balanceOf(owner)`). " +
          "Sui rules refuse it.",
        example: "1",
      }),
    minBalance: z.number().int().min(1).max(1_000_000).default(1).openapi({
      description: "Tokens of the collection the holder needs, counted across their linked addresses on the chain " +
        "(ERC-1155: units of `tokenId`)",
    }),
    grants: z.array(z.enum(["view", "register", "checkIn"])).min(1).max(3)
      .openapi({ description: "What holding grants: seeing the event, registering, checking in" }),
  })
  .strict()
  .superRefine((rule, ctx) => {
    const evm = rule.chain === "evm";
    if (evm !== (typeof rule.chainId === "number")) {
      ctx.addIssue({ code: "custom", path: ["chainId"], message: evm ? "EVM rules need a numeric chainId" : "Sui rules need a sui:* chainId" });
    }
    if (!(evm ? EVM_ADDRESS : SUI_ADDRESS).test(rule.collection)) {
      ctx.addIssue({ code: "custom", path: ["collection"], message: `not a ${rule.chain.toUpperCase()} collection address` });
    }
    if (!evm && rule.tokenId !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["tokenId"],
        message: "tokenId is for EVM ERC-1155 collections; a Sui rule counts the collection's passes (leave tokenId out)",
      });
    }
  })
  .openapi("NftAccessRule");

const eventFields = {
  name: z.string().trim().min(1).max(200),
  slug: Slug.optional().openapi({ description: "Unique among your events. Omitted: derived from the name and made unique with a suffix (`weekly-meetup-2`). A `slug` you send that another of your events has answers 409 `slug_taken`." }),
  description: z.string().max(10_000).default(""),
  startsAt: Instant.openapi({ example: "2026-12-05T19:00:00+01:00" }),
  endsAt: Instant.openapi({ example: "2026-12-05T23:30:00+01:00" }),
  timeZone: z.string().refine(isTimeZone, "an IANA time zone such as Europe/Berlin").openapi({ example: "Europe/Berlin" }),
  venue: Venue.nullable().default(null),
  visibility: z.enum(["public", "unlisted", "private"]).default("public")
    .openapi({ description: "public: listed for everyone once PUBLISHED; unlisted: readable by id, not listed; private: the owner only" }),
  status: Status.default("INCOMPLETE").openapi({ description: "INCOMPLETE events are drafts only their owner sees" }),
  accessRules: z.array(AccessRule).max(20).default([]),
};

const startsBeforeEnd = (e: { startsAt?: string; endsAt?: string }) =>
  !e.startsAt || !e.endsAt || Date.parse(e.startsAt) <= Date.parse(e.endsAt);

export const CreateEventSchema = z.object(eventFields).strict()
  .refine(startsBeforeEnd, { message: "endsAt must not be before startsAt", path: ["endsAt"] })
  .openapi("CreateEvent");

export const UpdateEventSchema = z
  .object({
    name: eventFields.name,
    slug: Slug,
    description: z.string().max(10_000),
    startsAt: eventFields.startsAt,
    endsAt: eventFields.endsAt,
    timeZone: eventFields.timeZone,
    venue: Venue.nullable(),
    visibility: z.enum(["public", "unlisted", "private"]),
    status: Status,
    accessRules: z.array(AccessRule).max(20),
  })
  .partial()
  .strict()
  .refine((e) => Object.keys(e).length > 0, "send at least one field to change")
  .refine(startsBeforeEnd, { message: "endsAt must not be before startsAt", path: ["endsAt"] })
  .openapi("UpdateEvent");

export const EventSchema = z
  .object({
    id: ObjectId,
    ownerId: ObjectId,
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    startsAt: timestamp,
    endsAt: timestamp,
    timeZone: z.string(),
    venue: z.object({ name: z.string(), address: AddressSchema, coordinates: Coordinates.nullable() }).nullable(),
    visibility: z.enum(["public", "unlisted", "private"]),
    status: Status,
    accessRules: z.array(AccessRule),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .openapi("Event");

export const EventListQuery = listQuerySchema({
  status: Status.optional(),
  scope: z.enum(["all", "mine"]).default("all")
    .openapi({ description: "all: every event visible to you (unlisted ones only when yours); mine: events you own" }),
});
