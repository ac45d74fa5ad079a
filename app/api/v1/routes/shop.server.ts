import { planInForce } from "~/services/plans/entitlements.server";
import { type OpenAPIHono } from "@hono/zod-openapi";
import { toTimestamp } from "~/lib/time";
import { getEmbedStatus } from "~/services/shops/embed-status.server";
import { shopSettingsPatchSchema } from "~/services/shops/settings";
import { getShopOverview, updateShopSettings } from "~/services/shops/shops.server";
import type { V1Env } from "../context";
import { apiRoute } from "../route.server";
import { jsonBody, jsonResponse, problemAnswer } from "../route-shapes";
import { EmbedStatusSchema, SettingsSchema, ShopOverviewSchema } from "../schemas";
import { requireBodySent } from "../validation-problems.server";

const PRIVATE = ["private"] as const;

const getShop = apiRoute({
  method: "get",
  path: "/shop",
  tags: ["Shop"],
  summary: "Shop overview",
  description: "The shop, its settings, its public key, and usage counted from the shop's lists and items.",
  modes: PRIVATE,
  responses: { 200: jsonResponse("The shop", ShopOverviewSchema) },
});

const getEmbed = apiRoute({
  method: "get",
  path: "/shop/embed-status",
  tags: ["Shop"],
  summary: "Whether the theme app embed is enabled",
  description:
    "Asks the platform's Admin API for the published theme's settings and reports whether the app embed is on, " +
    "which theme was read (`theme.id`, its numeric id as a decimal string, and `theme.name`; `theme.gid` keeps " +
    "the GraphQL id that `theme.id` carried before) and the theme editor link that switches the embed on. " +
    "Answers 409 `platform-not-connected` when the shop has no platform token and 502 `platform-unavailable` when " +
    "the platform does not answer within 5 seconds.",
  modes: PRIVATE,
  responses: {
    200: jsonResponse("Embed status", EmbedStatusSchema),
    409: problemAnswer("No platform token for the shop"),
    502: problemAnswer("The platform did not answer"),
  },
});

const patchSettings = apiRoute({
  method: "patch",
  path: "/shop/settings",
  tags: ["Shop"],
  summary: "Update settings",
  description:
    "Partial update: send only the members to change. Unknown members are refused (422). A JSON body is " +
    "required (`{}` changes nothing); no body at all is a 400 `body-required`.",
  modes: PRIVATE,
  request: {
    body: jsonBody(shopSettingsPatchSchema.meta({ id: "SettingsPatch" })),
  },
  responses: {
    200: jsonResponse("The settings after the update", SettingsSchema),
  },
});

export function registerShopRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(getShop, async (c) => {
    const { shop, settings, usage } = await getShopOverview({ shopId: c.get("caller").shopId });
    const { plan, updatedAt } = planInForce(shop);
    return c.json(
      {
        domain: shop.domain,
        plan: plan.id,
        planUpdatedAt: toTimestamp(updatedAt),
        installedAt: toTimestamp(shop.installedAt),
        settings,
        publicKey: shop.publicKey,
        usage,
      },
      200,
    );
  });

  app.openapi(getEmbed, async (c) => {
    const status = await getEmbedStatus({ shopDomain: c.get("caller").shopDomain });
    return c.json({ ...status, checkedAt: toTimestamp(status.checkedAt) }, 200);
  });

  app.openapi(patchSettings, async (c) => {
    requireBodySent(await c.req.text());
    const settings = await updateShopSettings({ shopId: c.get("caller").shopId, patch: c.req.valid("json") });
    return c.json(settings, 200);
  });
}
