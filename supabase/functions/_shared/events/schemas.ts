// The event's shapes: what a caller sends (create, change, list) and what every surface answers.
// Times are RFC 3339 instants (Instant); access rules are stored here and enforced by check-in.
import { z } from "@hono/zod-openapi";
import { listQuerySchema } from "../http/listing.ts";
import { CreatedAt, Instant, INSTANT_FORMAT, ObjectId, Timestamp, UpdatedAt } from "../http/openapi.ts";
import { SUI_NETWORKS } from "../sui/network.ts";

export const Slug = z.string().min(1).max(120).regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "lowercase letters, digits and single dashes")
  .openapi({ example: "berlin-web3-night" })
  .describe("Lowercase letters, digits and single dashes, 1-120 characters");
const Visibility = z.enum(["public", "unlisted", "private"])
  .describe("public: listed for everyone once PUBLISHED; unlisted: readable by id, not listed; private: the owner only");
export const Status = z.enum(["PUBLISHED", "INCOMPLETE"]).describe("PUBLISHED: visible as its visibility says; INCOMPLETE: a draft");

const isTimeZone = (zone: string) => {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    // The database's rule (community.is_time_zone): Area/Location names and UTC.
    return zone === "UTC" || /^[A-Za-z]+(\/[A-Za-z0-9_+-]+)+$/.test(zone);
  } catch {
    return false;
  }
};

const Coordinates = z.object({
  lat: z.number().min(-90).max(90).describe("Latitude in degrees, -90 to 90 (WGS 84)"),
  lng: z.number().min(-180).max(180).describe("Longitude in degrees, -180 to 180 (WGS 84)"),
}).openapi("Coordinates");

export const AddressSchema = z
  .object({
    line1: z.string().min(1).max(200).optional().describe("Street and number, 1-200 characters"),
    line2: z.string().min(1).max(200).optional().describe("More of the address (floor, building), 1-200 characters"),
    city: z.string().min(1).max(120).optional().describe("City or town, 1-120 characters"),
    region: z.string().min(1).max(120).optional().describe("State, province or region, 1-120 characters"),
    postalCode: z.string().min(1).max(20).optional().describe("Postal code, 1-20 characters"),
    country: z.string().regex(/^[A-Z]{2}$/, "ISO 3166-1 alpha-2 code").optional().describe("ISO 3166-1 alpha-2 code in capitals, e.g. DE"),
  })
  .strict()
  .openapi("Address")
  .describe("A postal address; every part is optional");

const Venue = z
  .object({
    name: z.string().min(1).max(200).describe("The venue's name, 1-200 characters"),
    address: AddressSchema.describe("The venue's postal address"),
    coordinates: Coordinates.nullable().describe("Where the venue is on the map; null: not known").default(null),
  })
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
    chain: z.enum(["evm", "sui"]).describe("Which kind of chain the collection lives on"),
    chainId: z.union([z.number().int().positive(), z.enum(SUI_NETWORKS)]).describe("EVM: the numeric chain id. Sui: `sui:mainnet`, `sui:testnet`, `sui:devnet` or `sui:localnet` (a local network, for development)."),
    collection: z.string().describe("EVM: the collection contract address, an ERC-721 contract (or an ERC-1155 one, with `tokenId`). " +
        "Sui: the collection object id (passes of the service's event_pass package that name it), or a Move type " +
        "`0x…::module::Type` whose every object counts as a pass."),
    tokenId: z.string().regex(UINT256_DECIMAL, "a token id in decimal digits, without leading zeros")
      .refine(fitsIn256Bits, "a token id fits in 256 bits")
      .optional()
      .openapi({ example: "1" })
      .describe("EVM only. Present: the collection is an ERC-1155 contract and holding means units of this token id " +
          "(`balanceOf(owner, id)`), written in decimal (ids are 256-bit). Absent: an ERC-721 contract (`balanceOf(owner)`). " +
          "Sui rules refuse it."),
    minBalance: z.number().int().min(1).max(1_000_000).default(1).describe("Tokens of the collection the holder needs, counted across their linked addresses on the chain " +
        "(ERC-1155: units of `tokenId`)"),
    grants: z.array(z.enum(["view", "register", "checkIn"])).min(1).max(3)
      .describe("What holding grants: seeing the event, registering, checking in"),
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
  .openapi("NftAccessRule")
  .describe("What holding tokens of one NFT collection grants at the event");

const eventFields = {
  name: z.string().trim().min(1).max(200).describe("The event's name, 1-200 characters (trimmed)"),
  slug: Slug.optional().describe("Unique among your events. Omitted: derived from the name and made unique with a suffix (`weekly-meetup-2`). A `slug` you send that another of your events has answers 409 `slug_taken`."),
  description: z.string().max(10_000).default("").describe("What the event is, up to 10,000 characters (plain text)"),
  startsAt: Instant.openapi({ example: "2026-12-05T19:00:00+01:00" }).describe(`When the event starts. ${INSTANT_FORMAT}`),
  endsAt: Instant.openapi({ example: "2026-12-05T23:30:00+01:00" }).describe(`When the event ends, not before startsAt. ${INSTANT_FORMAT}`),
  timeZone: z.string().refine(isTimeZone, "an IANA time zone such as Europe/Berlin").openapi({ example: "Europe/Berlin" })
    .describe("The IANA time zone the event's times are shown in (Area/Location, e.g. Europe/Berlin, or UTC)"),
  venue: Venue.nullable().describe("Where the event happens; null: no venue yet").default(null),
  visibility: Visibility.default("public"),
  status: Status.default("INCOMPLETE").describe("INCOMPLETE events are drafts only their owner sees; PUBLISHED ones are visible as `visibility` says"),
  accessRules: z.array(AccessRule).max(20).default([])
    .describe("NFT holdings that grant seeing, registering or checking in (at most 20); none: open to all"),
};

const startsBeforeEnd = (e: { startsAt?: string; endsAt?: string }) =>
  !e.startsAt || !e.endsAt || Date.parse(e.startsAt) <= Date.parse(e.endsAt);

export const CreateEventSchema = z.object(eventFields).strict()
  .refine(startsBeforeEnd, { message: "endsAt must not be before startsAt", path: ["endsAt"] })
  // The smallest valid body: every defaulted field left out, as a generated client must allow.
  .openapi("CreateEvent", {
    example: { name: "Weekly meetup", startsAt: "2026-12-05T19:00:00+01:00", endsAt: "2026-12-05T23:30:00+01:00", timeZone: "Europe/Berlin" },
  })
  .describe("A new event; you become its owner");

export const UpdateEventSchema = z
  .object({
    name: eventFields.name,
    slug: Slug.describe("A new slug, unique among your events (409 `slug_taken` otherwise)"),
    description: z.string().max(10_000).describe("What the event is, up to 10,000 characters (plain text)"),
    startsAt: eventFields.startsAt,
    endsAt: eventFields.endsAt,
    timeZone: eventFields.timeZone,
    venue: Venue.nullable().describe("Where the event happens; null removes the venue"),
    visibility: Visibility,
    status: Status.describe("PUBLISHED or INCOMPLETE (a draft only the owner sees)"),
    accessRules: z.array(AccessRule).max(20).describe("The whole new set of access rules (at most 20); [] removes them all"),
  })
  .partial()
  .strict()
  .refine((e) => Object.keys(e).length > 0, "send at least one field to change")
  .refine(startsBeforeEnd, { message: "endsAt must not be before startsAt", path: ["endsAt"] })
  .openapi("UpdateEvent")
  .describe("The fields to change; fields left out stay as they are");

export const EventSchema = z
  .object({
    id: ObjectId.describe("The event's id"),
    ownerId: ObjectId.describe("The id of the user who owns the event"),
    name: z.string().describe("The event's name"),
    slug: z.string().describe("The event's slug, unique among its owner's events"),
    description: z.string().describe("What the event is (plain text; may be empty)"),
    startsAt: Timestamp.describe("When the event starts (UTC)"),
    endsAt: Timestamp.describe("When the event ends (UTC)"),
    timeZone: z.string().describe("The IANA time zone to show the event's times in"),
    venue: z.object({
      name: z.string().describe("The venue's name"),
      address: AddressSchema.describe("The venue's postal address"),
      coordinates: Coordinates.nullable().describe("Where the venue is on the map; null: not known"),
    }).nullable().describe("Where the event happens; null: no venue yet"),
    visibility: Visibility,
    status: Status,
    accessRules: z.array(AccessRule).describe("NFT holdings that grant seeing, registering or checking in; empty: open to all"),
    createdAt: CreatedAt,
    updatedAt: UpdatedAt,
  })
  .openapi("Event")
  .describe("An event");

export const EventListQuery = listQuerySchema({
  status: Status.optional().describe("Only events in this state; omitted: both (INCOMPLETE ones are only ever yours)"),
  scope: z.enum(["all", "mine"]).default("all")
    .describe("all: every event visible to you (unlisted ones only when yours); mine: events you own"),
});
