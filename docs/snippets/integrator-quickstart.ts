// The integrator quickstart (docs/generated-clients.md): a typed client generated from the served
// OpenAPI document with openapi-typescript, called with openapi-fetch. The types come from
//   npx openapi-typescript http://127.0.0.1:54321/api/v3/openapi -o api.d.ts
// tests/docs/generated-client.e2e.test.ts generates them, type-checks this file against them
// (strict) and runs it against a local stack.
import createClient from "openapi-fetch";
import type { paths } from "./api";

export interface QuickstartSetup {
  /** The API root, e.g. http://127.0.0.1:54321 (`npm start` prints it). */
  baseUrl: string;
  /** The organiser's API key: creates the event, scans at the door, sells and sponsors. */
  organizerKey: string;
  /** The attendee's API key: reserves a place and shows the ticket. */
  attendeeKey: string;
  /** One of the organiser's registered NFT collections (POST /api/v3/nft-collection). */
  collectionId: string;
  /** The organiser's sponsor wallet (a linked address with a recorded deposit) and what it sponsors. */
  sponsorship: {
    walletAddress: string;
    chainId: number;
    clientId: string;
    targetAddress: string;
    callData: string;
    actorAddress: string;
  };
}

/** An API error answer as an exception: every error has one body with a stable `code`. */
function fail(step: string, error: { code?: string; message?: string }): never {
  throw new Error(`${step}: ${error.code} ${error.message}`);
}

export async function runQuickstart(setup: QuickstartSetup) {
  const organizer = createClient<paths>({ baseUrl: setup.baseUrl, headers: { "x-api-key": setup.organizerKey } });
  const attendee = createClient<paths>({ baseUrl: setup.baseUrl, headers: { "x-api-key": setup.attendeeKey } });

  // 1. An event. description, visibility and accessRules have defaults and may be left out.
  const startsAt = new Date(Date.now() + 60 * 60 * 1000);
  const created = await organizer.POST("/api/v3/events", {
    body: {
      name: "Quickstart night",
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 4 * 60 * 60 * 1000).toISOString(),
      timeZone: "Europe/Berlin",
      status: "PUBLISHED",
    },
  });
  if (!created.data) fail("create event", created.error);
  const event = created.data;

  // 2. The attendee reserves a place (201 the first time, 200 with the same reservation again).
  const reserved = await attendee.POST("/api/v3/events/{eventId}/reservations", { params: { path: { eventId: event.id } } });
  if (!reserved.data) fail("reserve", reserved.error);
  const reservation = reserved.data;

  // 3. The ticket: the QR code's token.
  const ticketed = await attendee.GET("/api/v3/events/{eventId}/reservations/{reservationId}/ticket", {
    params: { path: { eventId: event.id, reservationId: reservation.id } },
  });
  if (!ticketed.data) fail("ticket", ticketed.error);

  // 4. The door scans it. direction has a default (entry); the nonce makes a retried request safe.
  const scanned = await organizer.POST("/api/v3/events/{eventId}/check-ins", {
    params: { path: { eventId: event.id } },
    body: { method: "qr", ticket: ticketed.data.token, deviceId: "door-1", nonce: crypto.randomUUID() },
  });
  if (!scanned.data) fail("scan", scanned.error);

  // 5. A checkout session for one NFT ticket (expiresInSeconds defaults to 1800).
  const checkout = await organizer.POST("/api/v3/checkout/sessions", {
    body: {
      collectionId: setup.collectionId,
      externalOrderId: `order-${crypto.randomUUID()}`,
      items: [{
        name: "Quickstart night: front row",
        description: "One NFT ticket",
        mintPrice: "10000000000000000",
        image: "https://store.example/ticket.png",
        externalProductRef: "front-row",
        quantity: 1,
      }],
      paymentMethods: ["crypto_wallet"],
      allowedOrigin: "https://store.example",
      webhookUrl: "https://store.example/webhooks/checkout",
    },
  });
  if (!checkout.data) fail("create checkout session", checkout.error);

  // 6. Sponsored gas: enable check-ins for the sponsor wallet (every limit left at its default),
  //    then ask whether one would be sponsored (nativeValueWei defaults to "0").
  const { walletAddress, chainId, clientId, targetAddress, callData, actorAddress } = setup.sponsorship;
  const settings = await organizer.POST("/api/v3/sponsorship/settings", {
    body: { walletAddress, chainId, enabledOperations: ["check_in"] },
  });
  if (!settings.data) fail("sponsorship settings", settings.error);
  const checked = await organizer.POST("/api/v3/sponsorship/check", {
    body: { walletAddress, chainId, operationType: "check_in", clientId, targetAddress, callData, actorAddress, maxCostWei: "100000000000000" },
  });
  if (!checked.data) fail("sponsorship check", checked.error);

  return {
    event: { id: event.id, visibility: event.visibility, accessRules: event.accessRules.length },
    reservation: { id: reservation.id, status: reservation.status },
    scan: { result: scanned.data.result, admitted: scanned.data.admitted, direction: scanned.data.direction },
    checkout: { id: checkout.data.checkoutId, status: checkout.data.status, checkoutUrl: checkout.data.checkoutUrl },
    sponsorship: { eligible: checked.data.eligible, reason: checked.data.reason, reservationId: checked.data.reservationId },
  };
}
