// One GET to an external geocoder: a timeout, a size bound, JSON, and a zod schema. Any failure
// becomes 502 geocoder_unavailable; the caller never sees a 500 because a third party misbehaved.
import type { z } from "zod";
import { ApiError } from "../http/errors.ts";
import { geocoderUnavailable } from "./types.ts";

/** More than any sane page of 20 suggestions: a bigger answer is not the protocol. */
const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;

const USER_AGENT = "events-hub-checkout-service/0.1 (venue autocomplete)";

/** `base` joined with `path`, keeping a path prefix the base URL may have (http://host/nominatim/). */
export function endpoint(base: string, path: string, params: Record<string, string>): URL {
  const url = new URL(path, base.endsWith("/") ? base : `${base}/`);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url;
}

export async function fetchJson<S extends z.ZodTypeAny>(
  provider: string,
  url: URL,
  schema: S,
  timeoutMs: number,
): Promise<z.infer<S>> {
  let text: string;
  try {
    const response = await fetch(url, {
      headers: { accept: "application/json", "user-agent": USER_AGENT },
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "follow",
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw geocoderUnavailable(provider, `upstream answered ${response.status}`);
    }
    const length = Number(response.headers.get("content-length") ?? "0");
    if (length > MAX_RESPONSE_BYTES) {
      await response.body?.cancel().catch(() => {});
      throw geocoderUnavailable(provider, "upstream answer too large");
    }
    text = await response.text();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    throw geocoderUnavailable(provider, timedOut ? `no answer within ${timeoutMs} ms` : "upstream unreachable");
  }
  if (text.length > MAX_RESPONSE_BYTES) throw geocoderUnavailable(provider, "upstream answer too large");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw geocoderUnavailable(provider, "upstream answer is not JSON");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw geocoderUnavailable(provider, `upstream answer is not the ${provider} protocol`);
  return parsed.data;
}
