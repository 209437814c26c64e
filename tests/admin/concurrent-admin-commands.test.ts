// Admin commands run at the same time (two `npm run admin -- key create` in two terminals, a script
// creating keys in parallel) each let api_gateway log in as they connect: none fails for another.
import { expect, inject, it } from "vitest";
import { enableLocalGatewayLogin } from "../../scripts/lib/local-postgres.ts";

it("concurrent admin commands all enable the gateway's login, none failing with 'tuple concurrently updated'", async () => {
  for (let round = 0; round < 5; round++) {
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => enableLocalGatewayLogin(inject("serverUrl"))));
    const failures = outcomes.flatMap((o) => (o.status === "rejected" ? [String(o.reason)] : []));
    expect(failures).toEqual([]);
  }
});
