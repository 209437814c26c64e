// The fuzz suite (fuzz-suite.ts) against the functions served as on Supabase (tests/hosted/
// edge-functions.ts): the api function and the app functions in Deno processes of their own, from their
// own deno.json, behind a TCP proxy that passes each request through byte for byte and only strips
// /functions/v1 from its path. Each request is sent over a connection of its own as raw bytes
// (raw-http.ts), so what fetch would refuse to send (an invalid content-length, odd header bytes)
// reaches the function, and is judged by the same checks as in process.
import { expect, it } from "vitest";
import { APP_FUNCTIONS } from "../app-functions/function-fixtures.ts";
import { serveHostedFunctions } from "../hosted/edge-functions.ts";
import { describeFuzzSuite } from "./fuzz-suite.ts";
import { sendRaw } from "./raw-http.ts";
import { checkAnswer, type FuzzRequest } from "./request-generators.ts";

const RUNS = Number(process.env.FUZZ_HOSTED_RUNS ?? 30);

/**
 * Where a document path is on Supabase: /functions/v1/... and /auth/v1/... are the platform's already,
 * /api/... is the api function's (/functions/v1/api/...), and so is every other path (/health is
 * /functions/v1/api/health).
 */
const hostedPath = (url: string) =>
  /^\/+(functions|auth)\//i.test(url) ? url : /^\/+api(?=[/?]|$)/i.test(url) ? `/functions/v1${url}` : `/functions/v1/api${url}`;

/**
 * Whether `request` declares a content-length HTTP cannot frame (not a decimal number, or beyond any
 * length): RFC 9112 §6.3 has the server refuse such a message with 400 before any handler sees it, so
 * Deno's HTTP server answers it, not the function (in process the header is only a header).
 */
const unframeable = (request: FuzzRequest) =>
  request.headers.some(([name, value]) => name.toLowerCase() === "content-length" && !(/^\d+$/.test(value) && Number(value) <= Number.MAX_SAFE_INTEGER));

let answeredByFunctions = 0;
let answeredByPlatform = 0;

await describeFuzzSuite("served as on Supabase", {
  runs: RUNS,
  async startTarget({ env }) {
    const hosted = await serveHostedFunctions(["api", ...APP_FUNCTIONS], env, { rawProxy: true, timeoutMs: 240_000 });
    return {
      async send(request) {
        const answer = await sendRaw(hosted.origin, hostedPath(request.url), request);
        // A path that reaches no function (an upper-case or doubled-slash spelling of the function's
        // name) is answered by the platform, not by the service: only its 404 is checked.
        if (answer.headers.has("x-hosted-platform")) {
          answeredByPlatform++;
          return { status: answer.status, problems: answer.status === 404 ? [] : [`the platform answered ${answer.status}`], bodyExcerpt: answer.text.slice(0, 500) };
        }
        if (unframeable(request)) {
          return { status: answer.status, problems: answer.status === 400 ? [] : [`an unframeable request answered ${answer.status}, not 400`], bodyExcerpt: answer.text.slice(0, 500) };
        }
        answeredByFunctions++;
        return checkAnswer(request, answer);
      },
      close: () => hosted.stop(),
    };
  },
});

it("reached the functions with nearly every request, not only the platform's 404", () => {
  expect(answeredByFunctions).toBeGreaterThan(0);
  expect(answeredByPlatform / (answeredByFunctions + answeredByPlatform)).toBeLessThan(0.1);
});
