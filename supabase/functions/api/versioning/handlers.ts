import type { Context } from "hono";
import { createRouter } from "../../_shared/http/app.ts";
import type { AppEnv } from "../../_shared/http/context.ts";
import { ApiError } from "../../_shared/http/errors.ts";
import { apiUrl } from "../../_shared/http/public-urls.ts";

/** Versions 1 and 2 are gone: every request under them answers 410 and points to v3. */
function removedVersion(c: Context<AppEnv>): never {
  const config = c.get("config");
  const version = c.req.path.split("/")[2];
  throw new ApiError(410 as 400, "api_version_removed", `API ${version} has been removed; use version 3 at ${apiUrl(config, "/api/v3")}.`, {
    base_url: apiUrl(config, "/api/v3"),
    docs_url: apiUrl(config, "/api/v3/docs"),
  });
}

export const versioningRouter = createRouter()
  .all("/api/v1", removedVersion)
  .all("/api/v1/*", removedVersion)
  .all("/api/v2", removedVersion)
  .all("/api/v2/*", removedVersion);
