// Pure parts of webhook delivery: the signatures (checked with the standardwebhooks library and
// node:crypto, as a store would), the SSRF address rules and the retry schedule.
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { refusedAddressReason } from "../../supabase/functions/_shared/webhooks/address-policy.ts";
import { nextAttemptAt, RETRY_CAP_MS, RETRY_HORIZON_MS } from "../../supabase/functions/_shared/webhooks/retry-schedule.ts";
import { signWebhook } from "../../supabase/functions/_shared/webhooks/signing.ts";
import { newWebhookSecret } from "./receiver.ts";

describe("signWebhook", () => {
  const body = '{"type": "checkout.completed", "amount": "1000", "note": "naïve ✓"}';
  const eventId = "checkout-completed-0123456789abcdef01234567";

  it("signs the raw body (hex, keyed with the whole secret) and Standard Webhooks' id.timestamp.body", async () => {
    const secret = newWebhookSecret();
    const timestamp = new Date();
    const headers = await signWebhook({ body, secret, eventId, timestamp });
    expect(headers["x-service-event-id"]).toBe(eventId);
    expect(headers["webhook-id"]).toBe(eventId);
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(timestamp.getTime() / 1000)));
    expect(headers["x-service-signature"]).toBe(`v1=${createHmac("sha256", secret).update(body).digest("hex")}`);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });

  it("signs with both secrets during a rotation overlap, new first", async () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const headers = await signWebhook({ body, secret: [current, previous], eventId, timestamp: new Date() });
    expect(headers["x-service-signature"]).toBe(
      [current, previous].map((s) => `v1=${createHmac("sha256", s).update(body).digest("hex")}`).join(" "),
    );
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("an old timestamp is refused by the receiver library (replays)", async () => {
    const secret = newWebhookSecret();
    const headers = await signWebhook({ body, secret, eventId, timestamp: new Date(Date.now() - 10 * 60_000) });
    expect(() => new Webhook(secret).verify(body, headers)).toThrow(/too old/);
  });
});

describe("refusedAddressReason", () => {
  it.each([
    "0.0.0.0", "10.1.2.3", "100.64.0.1", "100.127.255.255", "127.0.0.1", "169.254.169.254", "172.16.0.1",
    "172.31.255.255", "192.168.1.1", "224.0.0.1", "239.255.255.250", "255.255.255.255", "::", "::1",
    "fe80::1", "fe80::1%eth0", "fc00::1", "fd12:3456::1", "ff02::1", "::ffff:127.0.0.1", "::ffff:7f00:1",
    "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe", "2002:c0a8:0101::1", "::127.0.0.1",
  ])("refuses %s", (address) => {
    expect(refusedAddressReason(address)).not.toBeNull();
  });

  it.each(["93.184.215.14", "8.8.8.8", "100.63.255.255", "100.128.0.0", "172.15.255.255", "172.32.0.0", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])(
    "allows %s",
    (address) => expect(refusedAddressReason(address)).toBeNull(),
  );

  it("refuses what is not an address", () => {
    expect(refusedAddressReason("localhost")).not.toBeNull();
    expect(refusedAddressReason("1:2:3")).not.toBeNull();
  });
});

describe("nextAttemptAt", () => {
  const queuedAt = new Date("2026-11-23T00:00:00Z");
  const at = (ms: number) => new Date(queuedAt.getTime() + ms);

  it("waits a random share of a ceiling that doubles from 10 s and stops at 6 h", () => {
    const waits = [0, 1, 2, 10, 11, 20].map((previousAttempts) =>
      nextAttemptAt({ previousAttempts, queuedAt, now: queuedAt, random: () => 0.999999 })!.getTime() - queuedAt.getTime());
    expect(waits.map((w) => Math.round(w / 1000))).toEqual([10, 20, 40, 10240, 20480, 21600]);
    // Full jitter goes down to nothing, bounded below by 1 s so a receiver is never hammered.
    expect(nextAttemptAt({ previousAttempts: 5, queuedAt, now: queuedAt, random: () => 0 })!.getTime() - queuedAt.getTime()).toBe(1000);
  });

  it("takes Retry-After in seconds or as an HTTP date, bounded to 6 h", () => {
    const now = at(60_000);
    const wait = (retryAfter: string) => nextAttemptAt({ previousAttempts: 0, queuedAt, now, retryAfter })!.getTime() - now.getTime();
    expect(wait("120")).toBe(120_000);
    expect(wait(new Date(now.getTime() + 300_000).toUTCString())).toBe(300_000);
    expect(wait("999999")).toBe(RETRY_CAP_MS);
    expect(wait("0")).toBe(1000);
    // Unreadable: the backoff applies.
    expect(wait("soon")).toBeLessThanOrEqual(10_000);
  });

  it("gives up when the next attempt would fall beyond 3 days after queueing", () => {
    expect(nextAttemptAt({ previousAttempts: 30, queuedAt, now: at(RETRY_HORIZON_MS - 2000), random: () => 0 })).not.toBeNull();
    expect(nextAttemptAt({ previousAttempts: 30, queuedAt, now: at(RETRY_HORIZON_MS - 500), random: () => 0 })).toBeNull();
  });
});
