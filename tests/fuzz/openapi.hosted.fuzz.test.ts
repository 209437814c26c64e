// The fuzz suite (fuzz-suite.ts) against the functions served as on Supabase (tests/hosted/
// edge-functions.ts): the api function and the app functions in Deno processes of their own, from their
// own deno.json, behind a TCP proxy that passes each request through byte for byte and only strips
// /functions/v1 from its path. Each request is sent over a connection of its own as raw bytes
// (raw-http.ts), so what fetch would refuse to send (an invalid content-length, odd header bytes)
// reaches the function's HTTP server as generated, and each answer is judged by the same checks as in
// process (checkAnswer). The exceptions are answers that are not the service's: the platform's 404
// for a path that names no function, and Deno's own 400 for what HTTP cannot carry (refusedByHttp).
import { expect, it } from "vitest";
import { APP_FUNCTIONS } from "../app-functions/function-fixtures.ts";
import { serveHostedFunctions } from "../hosted/edge-functions.ts";
import { describeFuzzSuite } from "./fuzz-suite.ts";
import { requestTarget, sendRaw } from "./raw-http.ts";
import { checkAnswer, type FuzzRequest } from "./request-generators.ts";

// Fewer than in process (600, ~100 s for the ~86 operations): here each request is a connection of
// its own through the proxy to a Deno process (~2.6 ms against ~1.8 ms), and the file must stay well
// under 90 s in npm test. 150 each (~13,000 requests) still draw every kind of mutation of every
// operation several times; the file takes ~45 s on the 2-core machine (200 took 55 s). The in-process
// run gives the depth; this one shows the hosted layout and a real HTTP transport change nothing.
const RUNS = Number(process.env.FUZZ_HOSTED_RUNS ?? 150);

/**
 * Where a document path is on Supabase: /functions/v1/... and /auth/v1/... are the platform's already,
 * /api/... is the api function's (/functions/v1/api/...), and so is every other path (/health is
 * /functions/v1/api/health).
 */
const hostedPath = (url: string) =>
  /^\/+(functions|auth)\//i.test(url) ? url : /^\/+api(?=[/?]|$)/i.test(url) ? `/functions/v1${url}` : `/functions/v1/api${url}`;

/**
 * Why Deno's HTTP server (the Edge Runtime's too) refuses `request` with 400 before any handler sees
 * it, or undefined: a content-length HTTP cannot frame (not a decimal number, or beyond any length;
 * RFC 9112 §6.3), or a request line near the 64 KiB Deno reads of a request's head. In process the
 * first is only a header and the second only a long string.
 */
function refusedByHttp(request: FuzzRequest, target: string): string | undefined {
  const contentLength = request.headers.find(([name]) => name.toLowerCase() === "content-length")?.[1];
  if (contentLength !== undefined && !(/^\d+$/.test(contentLength) && Number(contentLength) <= Number.MAX_SAFE_INTEGER)) return "an unframeable content-length";
  if (target.length > 65_000) return `a ${target.length}-byte request line`;
}

/** Who answered the requests: the functions, the platform (no such function), Deno's HTTP server (a refusal). */
const answeredBy = { functions: 0, platform: 0, http: 0 };

await describeFuzzSuite("served as on Supabase", {
  runs: RUNS,
  async startTarget({ env }) {
    const hosted = await serveHostedFunctions(["api", ...APP_FUNCTIONS], env, { rawProxy: true, timeoutMs: 240_000 });
    return {
      async send(request) {
        const path = hostedPath(request.url);
        const answer = await sendRaw(hosted.origin, path, request);
        // A path that reaches no function (an upper-case or doubled-slash spelling of the function's
        // name) is answered by the platform, not by the service: only its 404 is checked.
        if (answer.headers.has("x-hosted-platform")) {
          answeredBy.platform++;
          return {
            status: answer.status,
            reachedService: false,
            problems: answer.status === 404 ? [] : [`the platform answered ${answer.status}`],
            bodyExcerpt: answer.text.slice(0, 500),
          };
        }
        // Deno's own refusal is a bare 400 (no x-request-id, no body); a request it lets through is the function's to answer.
        const refusal = refusedByHttp(request, requestTarget(path).replace(/^\/functions\/v1/, ""));
        if (refusal && answer.status === 400 && !answer.headers.has("x-request-id") && answer.text === "") {
          answeredBy.http++;
          return { status: answer.status, reachedService: false, problems: [], bodyExcerpt: `(refused by HTTP: ${refusal})` };
        }
        answeredBy.functions++;
        return checkAnswer(request, answer);
      },
      close: () => hosted.stop(),
    };
  },
});

it("reached the functions with nearly every request: the platform's and HTTP's own answers are the exception", () => {
  const total = answeredBy.functions + answeredBy.platform + answeredBy.http;
  expect(answeredBy.functions / total, JSON.stringify(answeredBy)).toBeGreaterThan(0.9);
});
