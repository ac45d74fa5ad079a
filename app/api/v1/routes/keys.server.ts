import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { parseId } from "~/lib/ids";
import {
  apiKeyCreateSchema,
  createApiKey,
  listApiKeys,
  MAX_ACTIVE_KEYS_PER_SHOP,
  revokeApiKey,
  type CreatedApiKey,
} from "~/services/keys/api-keys.server";
import type { V1Env } from "../context";
import { idempotentReply } from "../idempotency-key.server";
import { apiRoute } from "../route.server";
import { idParameter, jsonBody, jsonResponse } from "../route-shapes";
import { ApiKeyCreatedSchema, ApiKeySchema } from "../schemas";
import { serializeApiKey } from "../serializers";

const PRIVATE = ["private"] as const;
const KeyIdParams = z.object({ id: idParameter("id", "apiKey") });

const listKeys = apiRoute({
  method: "get",
  path: "/keys",
  tags: ["API keys"],
  summary: "List API keys",
  description: "Every key of the shop, newest first, revoked ones included. Secrets are never shown again.",
  modes: PRIVATE,
  responses: { 200: jsonResponse("Keys", z.array(ApiKeySchema)) },
});

const createKey = apiRoute({
  method: "post",
  path: "/keys",
  tags: ["API keys"],
  summary: "Create a private key",
  description:
    "The response carries `secret` once. Store it; only a hash is kept. A shop holds at most " +
    `${MAX_ACTIVE_KEYS_PER_SHOP} active keys: one more is a 409 \`conflict\` until a key is revoked.`,
  modes: PRIVATE,
  request: {
    body: jsonBody(apiKeyCreateSchema),
  },
  responses: {
    201: jsonResponse("The new key, with its secret", ApiKeyCreatedSchema),
  },
});

const revokeKey = apiRoute({
  method: "delete",
  path: "/keys/{id}",
  tags: ["API keys"],
  summary: "Revoke a key",
  description:
    "The key stops working (401) at once on the server that answered, and within a second on every other server " +
    "of the service (each remembers a key it has seen for a second). Revoking a revoked key also answers 204.",
  modes: PRIVATE,
  request: { params: KeyIdParams },
  responses: { 204: { description: "Revoked" } },
});

export function registerKeyRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(listKeys, async (c) => {
    const keys = await listApiKeys({ shopId: c.get("caller").shopId });
    return c.json(keys.map(serializeApiKey), 200);
  });

  app.openapi(createKey, async (c) => {
    const reply = idempotentReply(c, ({ key, secret }: CreatedApiKey) =>
      c.json({ ...serializeApiKey(key), secret }, 201),
    );
    const created = await createApiKey(
      { shopId: c.get("caller").shopId, label: c.req.valid("json").label },
      reply.unit,
    );
    return reply.send(created);
  });

  app.openapi(revokeKey, async (c) => {
    const keyId = parseId("apiKey", c.req.valid("param").id);
    await revokeApiKey({ shopId: c.get("caller").shopId, keyId });
    return c.body(null, 204);
  });
}
