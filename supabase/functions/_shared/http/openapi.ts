// Pieces every route definition uses.
import { z } from "@hono/zod-openapi";

/** The service's public ids: 24-hex ObjectIDs generated in SQL. */
export const ObjectId = z.string().regex(/^[0-9a-f]{24}$/, "must be a 24-hex id").openapi({ example: "65f1c0a2b3d4e5f601234567" });

/** `security` of a route authenticated by `x-api-key` (the scheme registered by the docs routes). */
export const apiKeySecurity = [{ ApiKeyAuth: [] }];

/** `content` of a JSON request or response body. */
export const jsonContent = <T extends z.ZodTypeAny>(schema: T) => ({ content: { "application/json": { schema } } });
