import { createRoute, z } from "@hono/zod-openapi";
import { requireApiKey } from "../../_shared/auth/middleware.ts";
import { ErrorBodySchema, errorResponses } from "../../_shared/http/errors.ts";
import { apiKeySecurity, jsonContent, pathIds } from "../../_shared/http/openapi.ts";
import { PublishSuiCollectionSchema, SuiCollectionListSchema, SuiCollectionSchema } from "../../_shared/sui/schemas.ts";

const TAGS = ["Sui collections"];

export const publishSuiCollection = createRoute({
  operationId: "publishSuiCollection",
  method: "post",
  path: "/api/v3/crypto/sui/collection/publish",
  tags: TAGS,
  summary: "Publish a Sui event-pass collection (permission collections:publish)",
  description:
    "The service calls `<package>::collection::create_collection` of its `event_pass` Move package on `network`, " +
    "signing and paying the gas with its own Sui key; the organiser receives the collection's capability (who may " +
    "mint) and the Collection object is shared. Publishing spends the service's gas, so the API key needs the " +
    "permission `collections:publish`.\n\n" +
    "Idempotent per `clientReference`: the signed transaction is recorded before it is executed, and a retry executes " +
    "that very transaction again (Sui runs a digest once), so nothing is published twice. 201: published now; 200: the " +
    "record of an earlier request with this reference (published). 422 `sui_execution_failed`: the chain refused " +
    "the transaction; the record says why (`details.collection.failure`) and stays failed: publish again with a new " +
    "`clientReference`. 503 `sui_unavailable` (with `Retry-After`): the node could not be reached, or did not say " +
    "what became of the transaction; retry with the same request. 503 `sui_not_configured`: the service has no Sui key " +
    "or no node for `network`.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { body: { required: true, ...jsonContent(PublishSuiCollectionSchema) } },
  responses: {
    201: { description: "Published now", ...jsonContent(SuiCollectionSchema) },
    200: { description: "Published by an earlier request with this clientReference", ...jsonContent(SuiCollectionSchema) },
    ...errorResponses(400, 401, 403, 409, 413, 415, 503),
    422: {
      description: "The chain refused the transaction (code `sui_execution_failed`; `details.collection` is the failed record)",
      content: { "application/json": { schema: ErrorBodySchema } },
    },
  },
});

export const listSuiCollections = createRoute({
  operationId: "listSuiCollections",
  method: "get",
  path: "/api/v3/crypto/sui/collection",
  tags: TAGS,
  summary: "Your Sui collection publishes",
  description: "The 200 newest, newest first, whatever their status.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  responses: { 200: { description: "Your publishes", ...jsonContent(SuiCollectionListSchema) }, ...errorResponses(400, 401) },
});

export const getSuiCollection = createRoute({
  operationId: "getSuiCollection",
  method: "get",
  path: "/api/v3/crypto/sui/collection/{collectionId}",
  tags: TAGS,
  summary: "One of your Sui collection publishes",
  description: "`collectionId` is the record's id (not the chain's object id). Another owner's answers 404 like an unknown one.",
  security: apiKeySecurity,
  middleware: [requireApiKey] as const,
  request: { params: pathIds("collectionId") },
  responses: { 200: { description: "The publish", ...jsonContent(SuiCollectionSchema) }, ...errorResponses(400, 401, 404) },
});
