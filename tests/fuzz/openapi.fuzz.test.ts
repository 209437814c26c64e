// The fuzz suite (fuzz-suite.ts) in process: requests go through the gateway's routing, so the
// app-backend functions the document describes (/functions/v1/<name>) reach their own apps.
// FUZZ_RUNS (requests per operation) overrides the default below.
import { Hono } from "hono";
import { createFunctions, createGateway } from "../../scripts/gateway.ts";
import { describeFuzzSuite } from "./fuzz-suite.ts";
import { sendAndCheck } from "./request-generators.ts";

// About 100 s for the file on the 2-core machine (~86 operations, ~1.8 ms a request).
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);

await describeFuzzSuite("in process", {
  runs: RUNS,
  async startTarget({ ctx }) {
    // Every function behind the gateway's routing, called in process as app.request calls one app.
    const functions = createFunctions({ config: ctx.config, db: ctx.db });
    const gateway = createGateway(functions, functions.api);
    const app = new Hono().all("*", (c) => gateway(c.req.raw, {}));
    return { send: (request) => sendAndCheck(app, request) };
  },
});
