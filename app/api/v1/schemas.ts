import { z } from "@hono/zod-openapi";
import { pageParamsSchema } from "~/lib/validation";
import { shopSettingsFields } from "~/services/shops/settings";
import { EXPORT_FORMATS } from "~/services/transfers/transfer-requests";
import { SUBSCRIBABLE_EVENTS } from "~/services/webhooks/endpoints.server";

/**
 * Response and shared schemas of /v1. The same objects validate requests and generate /openapi.json
 * (docs/decisions/007-api-layer.md). Field sets are the v1 contract's; additions are marked in their
 * descriptions and are additive only.
 */

/** Query parameters of every cursor-paged list. */
export const PageQuery = z.object({
  cursor: pageParamsSchema.shape.cursor.openapi({ description: "`pageInfo.nextCursor` of the previous page." }),
  limit: pageParamsSchema.shape.limit.openapi({ description: "Page size, 1-100.", example: 50 }),
});

export const Timestamp = z.string().openapi({
  format: "date-time",
  description: "ISO-8601 in UTC with milliseconds and Z.",
  example: "2026-11-22T14:30:00.000Z",
});

export const PlatformId = z.string().regex(/^\d+$/).openapi({
  description: "A 64-bit platform id as a string of decimal digits.",
  example: "7234567890123",
});

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ description: "Stable URL of the problem type; it resolves to an explanation." }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
    instance: z.string().optional().openapi({ description: "The request path." }),
    errors: z
      .array(
        z.object({
          pointer: z.string().optional().openapi({ description: "JSON Pointer (URI fragment form) into the body." }),
          parameter: z.string().optional().openapi({ description: "Name of the query, path or header parameter." }),
          detail: z.string(),
        }),
      )
      .optional(),
  })
  .catchall(z.unknown())
  .openapi("Problem", { description: "RFC 9457 problem document. Branch on `type`, never on text." });

/** The problem of an operation of a plan's feature: `plan-required` carries what the plan lacks. */
export const PlanRequiredProblemSchema = ProblemSchema.extend({
  plan: z.string().optional().openapi({
    description: "With `plan-required`: the cheapest plan that has the feature (an open set: `GROWTH`, `PLUS`).",
    example: "GROWTH",
  }),
  currentPlan: z
    .string()
    .optional()
    .openapi({ description: "With `plan-required`: the shop's plan.", example: "FREE" }),
  feature: z
    .string()
    .optional()
    .openapi({ description: "With `plan-required`: the feature (an open set).", example: "demandInsights" }),
}).openapi("PlanRequiredProblem", {
  description: "RFC 9457 problem document; with type `plan-required`, also the plan needed. Branch on `type`.",
});

export const ItemSchema = z
  .object({
    id: z
      .string()
      .regex(/^itm_[A-Za-z0-9]+$/)
      .openapi({ example: "itm_01jd2x6c5ef0q8w3d0s8b2n7k4" }),
    productId: PlatformId,
    variantId: PlatformId.nullable().openapi({ description: "null when the item is the product without a variant." }),
    handle: z.string(),
    titleSnapshot: z.string().openapi({
      description:
        "Product title at save time. Every save is given the product's title (and current handle) from the " +
        "shop's catalogue by the service within seconds. Until then it is the title the save carried (empty " +
        "without one), and it stays that for a product the shop does not have. Additive: the catalogue's title " +
        "replaces a title the save carried, and a later save of a product whose catalogue title the shop " +
        "already knows takes that title (and handle) at once, whatever title it carried.",
    }),
    addedAt: Timestamp,
    available: z.boolean().openapi({
      description:
        "Additive: false once the product is gone from the shop (deleted there, or unknown to the shop's " +
        "catalogue): show the item as no longer available and do not link to its page. Not stock " +
        "availability: a product that is sold out or unpublished is still available here.",
    }),
    note: z
      .string()
      .nullable()
      .openapi({
        description:
          "Additive: the shopper's note (up to 280 characters of plain text; null for none). Show it as text, " +
          "never as markup: it is stored as the shopper typed it.",
        example: "size M for Sam",
      }),
    quantity: z.number().int().min(1).max(99).openapi({
      description: "Additive: how many the shopper means to buy (1-99, default 1): what Add to cart adds.",
    }),
    purchasedAt: Timestamp.nullable().openapi({
      description:
        "Additive: when an order of the list's owner bought the product (the service matches the shop's orders " +
        "to saved products); null until then. Show the item as bought; no alert or reminder is sent for it. " +
        "With `settings.boughtItems` `remove` a bought item leaves the list instead.",
    }),
  })
  .openapi("Item");

export const CustomerOwnerSchema = z
  .object({
    type: z.literal("customer"),
    customerId: PlatformId.openapi({ description: "The customer's platform id." }),
  })
  .openapi("CustomerOwner");

export const AnonymousOwnerSchema = z
  .object({
    type: z.literal("anonymous"),
    customerId: z.null().openapi({
      description: "Always null: a guest is no customer, and its anonymous id is never shown to anyone.",
    }),
  })
  .openapi("AnonymousOwner");

export const OwnerSchema = z.discriminatedUnion("type", [CustomerOwnerSchema, AnonymousOwnerSchema]).openapi("Owner", {
  description:
    "Who owns the list, told apart by `type`: a customer (`customerId`, a decimal string) or an anonymous " +
    "guest (`customerId` null, kept so that every owner has the same two members).",
});

export const ShareSchema = z
  .object({
    enabled: z.boolean(),
    token: z.string().nullable().openapi({ description: "null until a share link has been created." }),
  })
  .openapi("Share");

const listFields = {
  id: z
    .string()
    .regex(/^lst_[A-Za-z0-9]+$/)
    .openapi({ example: "lst_01jd2x6c5ef0q8w3d0s8b2n7k4" }),
  owner: OwnerSchema,
  name: z.string(),
  default: z.boolean(),
  count: z.number().int().min(0).openapi({ description: "Number of items." }),
  share: ShareSchema,
  updatedAt: Timestamp,
};

export const ListSummarySchema = z.object(listFields).openapi("ListSummary");
export const ListSchema = z.object({ ...listFields, items: z.array(ItemSchema) }).openapi("List");

export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      data: z.array(item),
      pageInfo: z.object({
        nextCursor: z
          .string()
          .nullable()
          .openapi({ description: "Pass as `cursor` for the next page; null at the end." }),
      }),
    })
    .openapi(name);
}

/**
 * Every member is always present in responses, so each is required here (defaults are in the descriptions).
 * The members are the settings service's schemas, plain zod: described with zod's `.meta`, which the OpenAPI
 * generator reads as it reads `.openapi`.
 */
export const SettingsSchema = z
  .object({
    guestEnabled: shopSettingsFields.guestEnabled.meta({
      description: "false: only logged-in customers keep wishlists (guests' writes get 403). Default true.",
    }),
    shareEnabled: shopSettingsFields.shareEnabled.meta({
      description: "false: no share links are created and shared lists are not shown. Default true.",
    }),
    sharePath: shopSettingsFields.sharePath.meta({
      description: "The shop's page that shows a shared list (`?share=<token>`). Default `/pages/wishlist`.",
    }),
    metafieldSyncEnabled: shopSettingsFields.metafieldSyncEnabled.meta({ description: "Default false." }),
    integrationConfigured: shopSettingsFields.integrationConfigured.meta({
      description:
        "An email-marketing integration flag. Default false. Also true, whatever was set, while Shopify Flow or a " +
        "webhook endpoint carries the shop's wishlist alerts (a workflow uses one of the app's alert or reminder " +
        "triggers, or an enabled endpoint subscribes to an `alert.*` event or `reminder.due`).",
    }),
    strings: shopSettingsFields.strings.meta({
      description:
        "Storefront strings by locale code, each a map of string key to text, e.g. " +
        '`{"en": {"add": "Add to wishlist"}}`. The storefront configuration picks the best locale.',
    }),
    headlessOrigins: shopSettingsFields.headlessOrigins.meta({
      description:
        "Browser origins (scheme://host[:port]) allowed by CORS for public-key calls. A preflight is granted " +
        "to an origin that some shop declares; the request itself only to its own shop's origins.",
    }),
    multipleLists: shopSettingsFields.multipleLists.meta({
      description:
        "Additive. true: shoppers may keep named lists besides their default one (POST /storefront/wishlists), " +
        "and the theme's heart opens a list picker. false: creating a list is a 403 `multiple-lists-disabled`; " +
        "lists made before stay readable, and can be renamed, emptied and deleted. Default false.",
    }),
    maxListsPerOwner: shopSettingsFields.maxListsPerOwner.meta({
      description:
        "Additive. The most lists one shopper (customer or guest) may keep, their default list included (1-100). " +
        "Creating one more is a 409 `too-many-lists`; lowering it deletes nothing. Default 20.",
    }),
    boughtItems: shopSettingsFields.boughtItems.meta({
      description:
        "Additive. What becomes of a saved item once its owner's order buys it: `keep` (it stays on the list, " +
        "with `purchasedAt` set, shown as bought) or `remove` (it leaves the list, as a removal by the shopper " +
        "would, with an `item.removed` event). Default `keep`.",
    }),
  })
  .openapi("Settings");

export const ShopOverviewSchema = z
  .object({
    domain: z.string(),
    plan: z.string().openapi({
      description:
        "The shop's plan in force: an open set of strings, `FREE`, `GROWTH` and `PLUS` today; treat an unknown " +
        "value as a paid plan. After a declined payment the paid plan holds for a grace period, then `FREE`. " +
        "Every plan keeps every shopper feature, webhooks and every operation but those marked `x-plan`; what each " +
        "plan adds is in docs/plans.md.",
      example: "FREE",
    }),
    planUpdatedAt: Timestamp,
    installedAt: Timestamp,
    settings: SettingsSchema,
    publicKey: z.string().openapi({ description: "The shop's browser-safe public key (svc_pk_...)." }),
    usage: z.object({ lists: z.number().int(), items: z.number().int() }),
  })
  .openapi("ShopOverview");

export const EmbedStatusSchema = z
  .object({
    enabled: z.boolean().openapi({ description: "true when the app embed is on in the published theme." }),
    state: z.enum(["enabled", "disabled", "not_added", "no_main_theme"]).openapi({
      description:
        "`enabled`; `disabled` (added, switched off); `not_added` (never activated in the theme editor); " +
        "`no_main_theme` (the shop has no published theme).",
    }),
    theme: z
      .object({
        id: z
          .string()
          .regex(/^\d+$/)
          .openapi({
            description:
              "The published theme's numeric id as a decimal string, like every platform id in this API " +
              "(`123456789`). Earlier builds put the GraphQL gid here; it is now the additive `gid`.",
            example: "123456789",
          }),
        gid: z.string().openapi({
          description: "Additive: the theme's Admin GraphQL id (`gid://shopify/OnlineStoreTheme/123456789`).",
          example: "gid://shopify/OnlineStoreTheme/123456789",
        }),
        name: z.string().openapi({ description: "The theme's name in the shop's admin." }),
      })
      .nullable()
      .openapi({ description: "The shop's published theme; null when it has none." }),
    editorUrl: z.string().openapi({ description: "Theme editor deep link that activates the embed." }),
    checkedAt: Timestamp,
  })
  .openapi("EmbedStatus");

export const ApiKeySchema = z
  .object({
    id: z.string().regex(/^key_[A-Za-z0-9]+$/),
    label: z.string(),
    kind: z.string().openapi({ description: "`private` today; further kinds may be added." }),
    hint: z.string().openapi({ description: "Additive: the last 4 characters of the secret, to tell keys apart." }),
    lastUsedAt: Timestamp.nullable().openapi({ description: "Roughly current (updated at most once a minute)." }),
    revokedAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .openapi("ApiKey");

export const ApiKeyCreatedSchema = ApiKeySchema.extend({
  secret: z.string().openapi({ description: "The key (svc_sk_...). Shown in this response only, never again." }),
}).openapi("ApiKeyCreated");

export const WebhookEndpointSchema = z
  .object({
    id: z.string().regex(/^whe_[A-Za-z0-9]+$/),
    url: z.string().openapi({ format: "uri" }),
    events: z.array(z.enum(SUBSCRIBABLE_EVENTS)),
    disabledAt: Timestamp.nullable().openapi({
      description:
        "Set after 20 consecutive failed deliveries (each failed on its last retry); the endpoint then receives nothing.",
    }),
    failCount: z.number().int().openapi({
      description:
        "Consecutive failed deliveries, each counted when its last retry fails (an attempt with a retry still due does not count); 0 after any 2xx.",
    }),
    createdAt: Timestamp,
  })
  .openapi("WebhookEndpoint");

export const WebhookEndpointCreatedSchema = WebhookEndpointSchema.extend({
  secret: z.string().openapi({
    description: "The signing secret (whsec_...). Shown in this response only; stored encrypted.",
  }),
}).openapi("WebhookEndpointCreated");

export const WebhookDeliverySchema = z
  .object({
    id: z
      .string()
      .regex(/^dlv_[A-Za-z0-9]+$/)
      .openapi({ description: "Sent as X-Service-Delivery." }),
    eventId: z.string().regex(/^evt_[A-Za-z0-9]+$/),
    eventType: z.string(),
    attempt: z.number().int().openapi({ description: "1 for the first attempt of this event to this endpoint." }),
    status: z.enum(["succeeded", "failed"]),
    statusCode: z.number().int().nullable().openapi({ description: "null when no response came (timeout, refused)." }),
    durationMs: z.number().int().nullable(),
    error: z.string().nullable().openapi({ description: "Why the attempt failed: `HTTP 500`, `timeout`, ..." }),
    responseSnippet: z
      .string()
      .nullable()
      .openapi({ description: "The first 1,024 bytes of the response body (never more is read)." }),
    nextRetryAt: Timestamp.nullable().openapi({ description: "When the next attempt is due; null if none." }),
    createdAt: Timestamp,
  })
  .openapi("WebhookDelivery");

export const TransferJobSchema = z
  .object({
    jobId: z
      .string()
      .regex(/^job_[A-Za-z0-9]+$/)
      .openapi({ example: "job_01jd2x6c5ef0q8w3d0s8b2n7k4" }),
    kind: z.enum(["import", "export"]),
    status: z.enum(["queued", "running", "succeeded", "failed"]).openapi({
      description:
        "queued -> running -> succeeded | failed. A job whose worker stops is run again (up to 3 attempts; imports " +
        "are idempotent), so `running` may return to its start with `rowsProcessed` at 0.",
    }),
    source: z.enum(["csv", "vendor_a", "vendor_b"]).nullable().openapi({ description: "Imports: the file's format." }),
    format: z
      .enum(EXPORT_FORMATS)
      .nullable()
      .openapi({ description: "Exports: the file's format (`marketing_csv` and `csv_six_columns` are additive)." }),
    dryRun: z.boolean().nullable().openapi({ description: "Imports: true when nothing is written." }),
    rowsProcessed: z
      .number()
      .int()
      .openapi({
        description:
          "Progress: data rows read so far (imports, updated every 5,000 rows) or written so far (exports, every " +
          "second). Final once the job has finished.",
      }),
    imported: z
      .number()
      .int()
      .nullable()
      .openapi({
        description:
          "Imports, once succeeded: rows actually inserted (0 on a re-run). For a dry run, what would have been. " +
          "Rows already saved are neither imported nor skipped: rowsProcessed - imported - skipped.",
      }),
    skipped: z.number().int().nullable().openapi({
      description: "Imports, once succeeded: rows refused (unresolvable customer, unparseable product id, ...).",
    }),
    resultUrl: z
      .string()
      .nullable()
      .openapi({
        format: "uri",
        description:
          "Once finished: for an export, the CSV file; for an import, its JSON report (totals, recognised and " +
          "unmapped columns, the first 100 issues with their line numbers; failed imports have one too). A signed " +
          "link valid 24 hours from this response, or until the file is deleted if that comes first (see " +
          "`resultDeletedAt`); read the job again for a fresh one. null once the file is due for deletion.",
      }),
    resultExpiresAt: Timestamp.nullable(),
    resultDeletedAt: Timestamp.nullable().openapi({
      description:
        "Additive: when the file or report was deleted, a number of days (7 unless the service is configured " +
        "otherwise) after the job finished; `resultUrl` is then null and a link handed out before answers 410 " +
        "`file-expired`. The job itself stays listed.",
    }),
    error: z.string().nullable().openapi({ description: "Why the job failed; null otherwise." }),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    startedAt: Timestamp.nullable(),
    finishedAt: Timestamp.nullable(),
  })
  .openapi("TransferJob");

export const JobAcceptedSchema = z
  .object({ jobId: z.string().regex(/^job_[A-Za-z0-9]+$/) })
  .openapi("JobAccepted", { description: "Follow the job with GET on its kind's path." });

export const UploadTargetSchema = z
  .object({
    uploadId: z.string().regex(/^upl_[A-Za-z0-9]+$/),
    uploadUrl: z.string().openapi({
      format: "uri",
      description: "PUT the file here, with the headers in `headers`, within 15 minutes. It never passes through /v1.",
    }),
    method: z.literal("PUT"),
    headers: z
      .record(z.string(), z.string())
      .openapi({ description: "Send exactly these headers with the PUT.", example: { "Content-Type": "text/csv" } }),
    fileUrl: z.string().openapi({ format: "uri", description: "Pass this to POST /v1/imports once uploaded." }),
    expiresAt: Timestamp.openapi({ description: "When uploadUrl stops accepting the file." }),
    maxBytes: z.number().int().openapi({ example: 52428800, description: "The largest file accepted (50 MB)." }),
  })
  .openapi("UploadTarget");

export const UploadSchema = z
  .object({
    uploadId: z.string().regex(/^upl_[A-Za-z0-9]+$/),
    filename: z.string(),
    contentType: z.string(),
    maxBytes: z.number().int(),
    expiresAt: Timestamp.openapi({ description: "When uploadUrl stopped (or stops) accepting the file." }),
    uploaded: z.boolean().openapi({ description: "true once a file has been stored." }),
    sizeBytes: z.number().int().nullable(),
    createdAt: Timestamp,
  })
  .openapi("Upload");

// Webhook event payloads (docs/webhooks.md). Delivered to endpoints registered with POST /v1/webhooks.
const envelope = <T extends z.ZodType>(type: string, data: T, name: string) =>
  z
    .object({
      id: z.string().regex(/^evt_[A-Za-z0-9]+$/),
      type: z.literal(type),
      shopDomain: z.string(),
      createdAt: Timestamp,
      data,
    })
    .openapi(name, {
      description:
        "Every event sent matches this schema. An event that named a customer whose data the shop erased (the " +
        "platform's customers/redact) is not sent again: its queued deliveries end unsent and a redelivery " +
        "answers 410 `event-redacted`.",
    });

const itemEventData = z.object({
  listId: z.string(),
  customerId: PlatformId.nullable(),
  anonymousId: z.string().nullable(),
  item: ItemSchema,
  count: z.number().int().openapi({ description: "Number of items in the list after the change." }),
});

const ownerEventData = {
  listId: z.string(),
  customerId: PlatformId.nullable(),
  anonymousId: z.string().nullable(),
};

/** What an alert event names: the alert, the customer's item, the product and the change (docs/webhooks.md). */
const alertState = (when: string) =>
  z.object({
    available: z.boolean().openapi({ description: `Whether the item could be bought ${when}.` }),
    price: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .nullable()
      .openapi({
        description: `The item's price ${when}, a decimal string in \`currency\` (for a price drop, \`old.price\` is the price the shopper saw when saving, or was last alerted of).`,
        example: "49.00",
      }),
    inventoryQuantity: z
      .number()
      .int()
      .nullable()
      .openapi({ description: `Units left ${when} across locations; null where the stock is not tracked.` }),
  });
const alertEventData = (description: string) =>
  z
    .object({
      alertId: z.string().regex(/^alr_[A-Za-z0-9]+$/),
      listId: z.string(),
      customerId: PlatformId,
      item: ItemSchema,
      product: z.object({ productId: PlatformId, title: z.string(), handle: z.string() }),
      variantId: PlatformId.nullable().openapi({
        description:
          "The variant the alert is about; null when the item was saved without one (the product as a whole).",
      }),
      currency: z
        .string()
        .regex(/^[A-Z]{3}$/)
        .openapi({ description: "The shop's currency (ISO 4217)." }),
      old: alertState("before the change"),
      new: alertState("after the change"),
    })
    .openapi({ description });

/** What a reminder event names: the reminder, the customer's item, the product and its price as last read. */
const reminderEventData = z
  .object({
    alertId: z
      .string()
      .regex(/^alr_[A-Za-z0-9]+$/)
      .openapi({
        description: "The reminder's id (reminders are alerts of kind `reminder`: the admin's log lists them).",
      }),
    listId: z.string(),
    customerId: PlatformId,
    item: ItemSchema,
    product: z.object({ productId: PlatformId, title: z.string(), handle: z.string() }),
    variantId: PlatformId.nullable().openapi({
      description: "The variant saved; null when the item was saved without one (the product as a whole).",
    }),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/)
      .openapi({ description: "The shop's currency (ISO 4217)." }),
    price: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .openapi({
        description: "The item's price as the shop's catalogue was last read, a decimal string in `currency`.",
        example: "49.00",
      }),
    savedDays: z.number().int().openapi({
      description: "Whole days since the item was saved (at least the shop's reminder delay).",
      example: 14,
    }),
  })
  .openapi({
    description:
      "Additive: a customer saved the product at least the shop's reminder delay ago (14 days unless it sets " +
      "another), has not bought it, and it can be bought. One event per customer and product, at most once, and " +
      "a customer's reminders at most once a week; made only while the shop's reminder rule is on.",
  });

export const WEBHOOK_EVENTS = {
  "item.added": envelope(
    "item.added",
    itemEventData.extend({
      movedFromListId: z
        .string()
        .optional()
        .openapi({
          description:
            "Additive: present when the item came by a move from another list of the owner (that list's id); " +
            "the item.removed of that list carries `movedToListId`. A move is no new save.",
        }),
    }),
    "ItemAddedEvent",
  ),
  "item.removed": envelope(
    "item.removed",
    itemEventData.extend({
      movedToListId: z.string().optional().openapi({
        description: "Additive: present when the item was moved to another list of the owner (that list's id).",
      }),
    }),
    "ItemRemovedEvent",
  ),
  "item.updated": envelope(
    "item.updated",
    z
      .object({
        ...ownerEventData,
        item: ItemSchema,
        changed: z
          .array(z.enum(["note", "quantity"]))
          .openapi({ description: "The members of the item the change set to a new value." }),
      })
      .openapi({ description: "Additive: the shopper changed an item's note or quantity (PATCH)." }),
    "ItemUpdatedEvent",
  ),
  "list.created": envelope(
    "list.created",
    z
      .object({ ...ownerEventData, name: z.string() })
      .openapi({ description: "Additive: the shopper created a named list (a default list emits none)." }),
    "ListCreatedEvent",
  ),
  "list.deleted": envelope(
    "list.deleted",
    z
      .object({
        ...ownerEventData,
        name: z.string(),
        count: z.number().int().openapi({ description: "Items the list held; they went with it (no item.removed)." }),
      })
      .openapi({ description: "Additive: the shopper deleted a named list." }),
    "ListDeletedEvent",
  ),
  "list.merged": envelope(
    "list.merged",
    z.object({
      listId: z.string(),
      customerId: PlatformId,
      mergedCount: z.number().int(),
      fromListId: z.string().optional().openapi({
        description:
          "Additive: the guest list merged (one event per guest list merged into a customer's list at login).",
      }),
    }),
    "ListMergedEvent",
  ),
  "list.shared": envelope(
    "list.shared",
    z.object({ listId: z.string(), shareToken: z.string(), url: z.string() }),
    "ListSharedEvent",
  ),
  "alert.back_in_stock": envelope(
    "alert.back_in_stock",
    alertEventData(
      "Additive: a product a customer saved can be bought again (one event per customer and product, at most once per cooldown).",
    ),
    "AlertBackInStockEvent",
  ),
  "alert.price_dropped": envelope(
    "alert.price_dropped",
    alertEventData(
      "Additive: a saved product's price fell by at least the shop's threshold below the price the customer saw.",
    ),
    "AlertPriceDroppedEvent",
  ),
  "alert.low_stock": envelope(
    "alert.low_stock",
    alertEventData("Additive: a saved product's stock fell to the shop's low-stock threshold or below."),
    "AlertLowStockEvent",
  ),
  "reminder.due": envelope("reminder.due", reminderEventData, "ReminderDueEvent"),
  "plan.allowance_reached": envelope(
    "plan.allowance_reached",
    z
      .object({
        allowance: z.string().openapi({
          description: "The allowance used up: `alert_emails` today (an open set).",
          example: "alert_emails",
        }),
        limit: z.number().int().openapi({ description: "The plan's allowance for the period.", example: 200 }),
        plan: z.string().openapi({ description: "The shop's plan then (an open set of strings).", example: "FREE" }),
        period: z.string().openapi({ description: "The calendar month (UTC) counted, `YYYY-MM`.", example: "2026-11" }),
        resetsAt: Timestamp.openapi({ description: "When the next period starts and the allowance is whole again." }),
      })
      .openapi({
        description:
          "Additive: the shop's plan allowance for the period is used up; sent once per period and allowance. " +
          "Nothing shopper-facing stops: alert emails over the allowance wait for the next period, or go out as " +
          "soon as the merchant moves to a plan with room.",
      }),
    "PlanAllowanceReachedEvent",
  ),
  ping: envelope(
    "ping",
    z
      .object({ endpointId: z.string(), message: z.string() })
      .openapi({ description: "Additive: sent by POST /v1/webhooks/{id}/test." }),
    "PingEvent",
  ),
} as const;
