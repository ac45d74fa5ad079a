import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { idPattern, parseId } from "~/lib/ids";
import { AppError } from "~/lib/problems";
import { guestListAttribute } from "~/services/attribution/guest-list-attribute.server";
import type { Owner } from "~/services/owners/owner";
import { getStorefrontConfig } from "~/services/shops/storefront-config.server";
import { mergeGuestList, type MergeResult } from "~/services/wishlists/merge.server";
import { readSharedList, shareWishlist, stopSharingWishlist } from "~/services/wishlists/sharing.server";
import { itemView, sharedListView, wishlistView } from "~/services/wishlists/views";
import { addItem, readWishlist, removeItem, toggleItem } from "~/services/wishlists/wishlists.server";
import type { Caller, Shopper, V1Env } from "../context";
import { idempotentReply } from "../idempotency-key.server";
import { platformIdInputForms, platformIdInputSchema } from "../platform-id-input";
import { apiRoute } from "../route.server";
import { jsonBody, jsonResponse, problemAnswer } from "../route-shapes";
import { ItemSchema, OwnerSchema, ShareSchema, Timestamp } from "../schemas";
import { anonymousIdSchema, OwnerInput, OwnerQuery, shopperOf } from "../shopper.server";
import { parameterProblem, requireBodySent } from "../validation-problems.server";

/** The storefront's three modes: the private key (naming the shopper), the public key and the app proxy. */
export const ALL_MODES = ["private", "public", "proxy"] as const;

/**
 * The operations on the shopper's own lists and items add the customer account extension's session token
 * (docs/decisions/047-customer-account-session-tokens.md); the configuration, shared lists and the login merge
 * do not: the account page needs none of them, and it never holds a guest's anonymous id.
 */
export const OWN_LIST_MODES = [...ALL_MODES, "customerAccount"] as const;

/**
 * Storefront bodies are open: clients written for other versions of the interface send members of their
 * own, which are accepted and ignored (dropped before anything is stored). The members listed are checked
 * strictly (422 with a pointer to each bad one).
 */
export const OPEN_BODY = {
  additionalProperties: true,
  description:
    "Members not listed here are accepted and ignored, so clients that send more keep working; the listed " +
    "members are checked strictly (422).",
};

const ItemInput = {
  productId: platformIdInputSchema("Product").openapi({ example: "7234567890123" }),
  handle: z
    .string()
    .min(1)
    .max(255)
    .regex(/^[^\s/?#]+$/, "must be a product handle (no spaces or slashes)"),
  variantId: platformIdInputSchema("ProductVariant")
    .nullable()
    .optional()
    .openapi({
      anyOf: [...platformIdInputForms("ProductVariant"), { type: "null" }],
      description: "Optional: save a specific variant. Digits or a GID; null (or no member) for the product itself.",
    }),
  title: z
    .string()
    .max(255)
    .optional()
    .openapi({
      description:
        "Optional: product title, kept as `titleSnapshot` until the shop's catalogue title replaces it (within " +
        "seconds); ignored when the catalogue's title of the product is known already.",
    }),
};

/** The list a save or removal acts on, in the body: absent, the shopper's default list. */
/** A list id in a body or a query: one of the shopper's lists. */
export const ListIdInput = z
  .string()
  .regex(new RegExp(idPattern("list")), "must be a list id (lst_...)")
  .openapi({ example: "lst_01jd2x6c5ef0q8w3d0s8b2n7k4" });

const ListIdMember = {
  listId: ListIdInput.optional().openapi({
    description:
      "Additive: one of the shopper's lists (GET /storefront/wishlists); absent, their default list. A list the " +
      "shopper does not have is a 404.",
  }),
};

/** A save (toggle, add): the item and, in the body or the query, the shopper. */
const SAVE_REQUEST = {
  query: OwnerQuery,
  body: jsonBody(z.object({ ...ItemInput, ...ListIdMember, ...OwnerInput }).openapi(OPEN_BODY)),
};

/** Share and unshare: the shopper in the query, or in an optional body. */
const OWNER_REQUEST = {
  query: OwnerQuery,
  body: jsonBody(z.object(OwnerInput).openapi(OPEN_BODY), { required: false }),
};

export const StorefrontListSchema = z
  .object({
    id: z.string().nullable().openapi({ description: "null until the first item is saved: reads never create lists." }),
    owner: OwnerSchema,
    name: z.string(),
    default: z.boolean(),
    count: z.number().int(),
    items: z.array(ItemSchema),
    share: ShareSchema,
    updatedAt: Timestamp.nullable(),
  })
  .openapi("Wishlist");

const WishlistReadSchema = StorefrontListSchema.extend({
  cartAttribute: z
    .string()
    .nullable()
    .openapi({
      description:
        "A guest's only: the value for the cart's hidden attribute `_wishlist_list`, so that the order the cart " +
        "becomes is matched to the guest's saves (docs/storefront.md, \"Orders from guests\"): the list's id and a " +
        "tag the app makes for this guest, `lst_<id>.<tag>`. An order whose attribute is a bare list id (which a " +
        "share link shows) is not matched. null for a customer, and until the first save made the list.",
      example: "lst_01jd2x6c5ef0q8w3d0s8b2n7k4.q1w2e3r4t5y6u7i8o9p0aA",
    }),
}).openapi("StorefrontWishlist", {
  description: "The shopper's default list, with the cart attribute of a guest's.",
});

/** A save's 404 and 409: a list the shopper does not have; besides a retry while the first request runs (every POST), the list being full. */
const SAVE_CONFLICT = {
  404: problemAnswer("`listId` names a list the shopper does not have: `not-found`"),
  409: problemAnswer(
    "Wishlist full (`list-full`: the list already holds the most items a list may hold, given in `maxItems`; " +
      "remove an item first), or Idempotency key in use (`idempotency-key-in-use`)",
  ),
};

const ToggleResultSchema = z
  .object({
    added: z.boolean(),
    count: z.number().int().openapi({ description: "Items in the list after the change." }),
    itemId: z.string().openapi({ description: "The item saved, or the item removed." }),
  })
  .openapi("ToggleResult");

const readRoute = apiRoute({
  method: "get",
  path: "/storefront/wishlist",
  tags: ["Storefront"],
  summary: "The shopper's wishlist",
  description:
    "The owner's default list with its items, newest first. A shopper with no list yet gets an empty list whose " +
    "`id` and `updatedAt` are null: reading never creates anything.",
  modes: OWN_LIST_MODES,
  request: { query: OwnerQuery },
  responses: {
    200: jsonResponse("The wishlist", WishlistReadSchema),
  },
});

const toggleRoute = apiRoute({
  method: "post",
  path: "/storefront/wishlist/toggle",
  tags: ["Storefront"],
  summary: "Save or unsave a product",
  description:
    "Saves the product (and variant) if it is not in the list, removes it if it is. Emits item.added or item.removed. " +
    "Saving into a full list is a 409 `list-full` (removing always works).",
  modes: OWN_LIST_MODES,
  request: SAVE_REQUEST,
  responses: {
    200: jsonResponse("What changed", ToggleResultSchema),
    ...SAVE_CONFLICT,
  },
});

const addRoute = apiRoute({
  method: "post",
  path: "/storefront/wishlist/items",
  tags: ["Storefront"],
  summary: "Save a product",
  description:
    "201 with the new item (emits item.added). Additive: 200 with the existing item when it was already saved; " +
    "nothing changes and no event is emitted. Saving a new item into a full list is a 409 `list-full`.",
  modes: OWN_LIST_MODES,
  request: SAVE_REQUEST,
  responses: {
    201: jsonResponse("Saved", ItemSchema),
    200: jsonResponse("Already saved", ItemSchema),
    ...SAVE_CONFLICT,
  },
});

const removeRoute = apiRoute({
  method: "delete",
  path: "/storefront/wishlist/items",
  tags: ["Storefront"],
  summary: "Unsave a product",
  description:
    "Removes the item named by `itemId` (query) or by `productId` (+ `variantId`) in the body. A JSON body is " +
    "required, `{}` with `itemId` in the query will do; no body at all is a 400 `body-required`. The guest may be " +
    "named by `aid` (query) or `anonymousId` (body). Removing what is not there also answers 204.",
  modes: OWN_LIST_MODES,
  request: {
    query: OwnerQuery.extend({
      itemId: z
        .string()
        .regex(/^itm_[A-Za-z0-9]+$/, "must be an item id (itm_...)")
        .optional(),
      listId: ListIdMember.listId,
    }),
    body: jsonBody(
      z
        .object({
          productId: ItemInput.productId.optional(),
          variantId: ItemInput.variantId,
          ...ListIdMember,
          ...OwnerInput,
        })
        .openapi(OPEN_BODY),
    ),
  },
  responses: {
    204: { description: "Removed (or was not there)" },
    404: problemAnswer("`listId` names a list the shopper does not have: `not-found`"),
  },
});

export const ShareResultSchema = z
  .object({
    listId: z.string(),
    token: z
      .string()
      .openapi({ description: "The share token (opens the list through GET /storefront/lists/{shareToken})." }),
    url: z.string().openapi({ description: "Link to the shop's share page: https://<shop><sharePath>?share=<token>." }),
    enabled: z.literal(true),
  })
  .openapi("ShareResult");

const SharedListSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    default: z.boolean(),
    count: z.number().int(),
    items: z.array(ItemSchema),
    updatedAt: Timestamp,
  })
  .openapi("SharedList", { description: "A list opened by its share token: no owner, no share details." });

const shareRoute = apiRoute({
  method: "post",
  path: "/storefront/wishlist/share",
  tags: ["Storefront"],
  summary: "Create the share link",
  description:
    "Creates the share link of the shopper's list once (emits list.shared) and returns it; later calls return the " +
    "same link without an event. 403 `sharing-disabled` when the shop does not allow sharing. The body is " +
    "optional: the owner is named as for the other storefront calls, in the query (`aid` for guests, `customerId` " +
    "for private keys) or in a JSON body (`anonymousId`, `customerId`), as toggle takes it. A guest's link ends " +
    "when the guest logs in (identify): it never opens the customer's list.",
  modes: OWN_LIST_MODES,
  request: OWNER_REQUEST,
  responses: { 200: jsonResponse("The share link", ShareResultSchema) },
});

const unshareRoute = apiRoute({
  method: "delete",
  path: "/storefront/wishlist/share",
  tags: ["Storefront"],
  summary: "Turn the share link off",
  description:
    "Additive. Deletes the share token of the shopper's list, so the link answers 404 `not-found` from now on; " +
    "for a customer, links that guest lists merged before 2026-11 left open to theirs stop working too. `share` then reads " +
    "`{enabled: false, token: null}`, as for a list never shared, and sharing again creates a new token (with a " +
    "list.shared event, as any new link). No event is emitted. 204 whether or not there was a link, so a retry is " +
    "safe; allowed even while the shop has sharing turned off, so that turning it back on revives no withdrawn " +
    "link. The owner is named as for POST: in the query (`aid`, `customerId`) or in an optional JSON body.",
  modes: OWN_LIST_MODES,
  request: OWNER_REQUEST,
  responses: { 204: { description: "The share link is off (or there was none)" } },
});

const sharedRoute = apiRoute({
  method: "get",
  path: "/storefront/lists/{shareToken}",
  tags: ["Storefront"],
  summary: "Open a shared list",
  description: "404 for an unknown token; 403 `sharing-disabled` when the shop does not allow sharing.",
  modes: ALL_MODES,
  request: {
    params: z.object({
      shareToken: z
        .string()
        .min(1)
        .max(64)
        .openapi({ param: { name: "shareToken", in: "path" } }),
    }),
  },
  responses: { 200: jsonResponse("The shared list", SharedListSchema) },
});

const identifyRoute = apiRoute({
  method: "post",
  path: "/storefront/identify",
  tags: ["Storefront"],
  summary: "Merge the guest list into the customer's at login",
  description:
    "For a logged-in customer only (app proxy with the signed customer, or a private key naming `customerId`); " +
    "public keys get 403. Moves the guest list's items into the customer's default list (on overlap the earlier " +
    "`addedAt` wins), retires the guest list, emits list.merged with `mergedCount` (items actually moved), and " +
    "returns the customer's full list. The merged list never holds more than the most items a list may hold " +
    "(see `list-full`): the customer's own items all stay, the guest's move earliest saved first while there is " +
    "room, and the guest's items beyond the cap are not carried over (they are deleted with the guest list). A list " +
    "holds a product once: a guest's item of a product the customer saved (with any variant or none) is not " +
    "moved; the customer's item keeps its variant, or takes the guest's when it had none. A share link the guest " +
    "had made stops working (404 from then on: the customer's list holds more than the guest shared), and " +
    "`guestShareLinkEnded` is then true, so the storefront can tell the shopper; the customer's own link stays. " +
    "Repeating it merges nothing and still answers 200. The guest and the customer are named in the body only: " +
    "`aid` or `customerId` in the query is a 400 `invalid-parameter` (it would name another shopper than the one " +
    "merged into, whose rate limit the call would then count).",
  modes: ALL_MODES,
  request: {
    body: jsonBody(z.object({ anonymousId: anonymousIdSchema, customerId: OwnerInput.customerId }).openapi(OPEN_BODY)),
  },
  responses: {
    200: jsonResponse(
      "The customer's list after the merge",
      StorefrontListSchema.extend({
        guestShareLinkEnded: z.boolean().openapi({
          description: "Additive. true when a guest list had a share link, which this merge turned off.",
        }),
        lists: z
          .array(
            z.object({
              fromListId: z.string().openapi({ description: "The guest's list." }),
              listId: z.string().openapi({ description: "The customer's list it joined or became." }),
              name: z.string(),
              outcome: z.enum(["merged", "moved"]).openapi({
                description:
                  "`merged`: its items joined the customer's list (the default one, or the one of the same name); " +
                  "`moved`: the list became the customer's whole.",
              }),
              mergedCount: z.number().int(),
              skippedCount: z
                .number()
                .int()
                .openapi({ description: "Items not carried over: the customer's list had no room for them." }),
            }),
          )
          .openapi({
            description:
              "Additive. What became of each guest list (the default first); empty when there was nothing to merge. " +
              "A guest's named list joins the customer's list of the same name (ignoring case), else becomes " +
              "theirs while they keep fewer lists than the shop allows, else joins their default list.",
          }),
      }),
    ),
  },
});

const StorefrontConfigSchema = z
  .object({
    locale: z.string().openapi({ description: "The locale chosen from Accept-Language (best fit), `en` by default." }),
    strings: z.record(z.string(), z.string()).openapi({
      description:
        "Texts for that locale: built-in defaults (keys add, remove, saved, removed, empty, title, share, linkCopied, " +
        "sharedTitle, loginToSave) overridden by the shop's settings.strings.",
    }),
    guestEnabled: z.boolean().openapi({ description: "false: show the heart to logged-in customers only." }),
    shareEnabled: z.boolean(),
    multipleLists: z.boolean().openapi({
      description: "Additive. Whether shoppers may keep named lists besides their default one (a list picker).",
    }),
    maxLists: z.number().int().openapi({
      description: "Additive. The most lists a shopper may keep, the default one included.",
    }),
    sharePath: z.string().openapi({ description: "The shop's page that shows a shared list (?share=<token>)." }),
    customerLoggedIn: z.boolean().openapi({ description: "true when the app proxy signed a logged-in customer." }),
    proxyPath: z.string().openapi({ description: "Where theme code calls the API on the shop's domain." }),
    apiVersion: z.literal("v1"),
  })
  .openapi("StorefrontConfig");

const configRoute = apiRoute({
  method: "get",
  path: "/storefront/config",
  tags: ["Storefront"],
  summary: "Storefront configuration",
  description: "Texts in the shopper's best locale and the shop's storefront rules. `Accept-Language` is required.",
  modes: ALL_MODES,
  request: {
    headers: z.object({
      "accept-language": z.string().min(1).max(500).openapi({ example: "fr-CA,fr;q=0.9,en;q=0.8" }),
    }),
  },
  responses: {
    200: jsonResponse("The configuration", StorefrontConfigSchema),
  },
});

/**
 * What a save hands its service: the item members of the body (those naming the shopper dropped), and the
 * shopper the body or the query names (422 `anonymousId` when a guest names none).
 */
function saveInput(
  caller: Caller,
  shopper: Shopper,
  body: z.output<(typeof SAVE_REQUEST.body.content)["application/json"]["schema"]>,
) {
  const { anonymousId: _anonymousId, customerId: _customerId, listId, ...item } = body;
  return { shopId: caller.shopId, owner: shopper.owner("body"), item, listId, settings: caller.settings };
}

export function registerStorefrontRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(configRoute, async (c) => {
    const caller = c.get("caller");
    const config = await getStorefrontConfig({
      shopId: caller.shopId,
      acceptLanguage: c.req.valid("header")["accept-language"],
      customerLoggedIn: caller.customerId !== null,
    });
    return c.json(config, 200, { "Content-Language": config.locale, Vary: "Accept-Language" });
  });

  app.openapi(identifyRoute, async (c) => {
    const caller = c.get("caller");
    const inQuery = ["aid", "customerId"].filter((name) => c.req.query(name) !== undefined);
    if (inQuery.length > 0) {
      const message = "not accepted here: identify names the guest and the customer in the JSON body";
      throw parameterProblem(inQuery.map((name) => ({ path: [name], message })));
    }
    const body = c.req.valid("json");
    const customerId = caller.mode === "proxy" ? caller.customerId : caller.mode === "private" ? body.customerId : null;
    if (!customerId) {
      throw new AppError("forbidden", {
        detail:
          caller.mode === "private"
            ? "Name the logged-in customer with customerId."
            : "Only a logged-in customer can merge a guest list (public keys never act as a customer).",
      });
    }
    const owner: Owner = { kind: "customer", customerId };
    const reply = idempotentReply(c, ({ list, guestShareLinkEnded, lists }: MergeResult) =>
      c.json({ ...wishlistView(owner, list), guestShareLinkEnded, lists }, 200),
    );
    const merged = await mergeGuestList(
      { shopId: caller.shopId, customerId, anonymousId: body.anonymousId },
      reply.unit,
    );
    return reply.send(merged);
  });

  app.openapi(shareRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("query");
    const reply = idempotentReply(c, ({ listId, token, url }: { listId: string; token: string; url: string }) =>
      c.json({ listId, token, url, enabled: true as const }, 200),
    );
    return reply.send(await shareWishlist({ shopId: caller.shopId, owner }, reply.unit));
  });

  app.openapi(unshareRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("query");
    await stopSharingWishlist({ shopId: caller.shopId, owner });
    return c.body(null, 204);
  });

  app.openapi(sharedRoute, async (c) => {
    const list = await readSharedList({ shopId: c.get("caller").shopId, token: c.req.valid("param").shareToken });
    return c.json(sharedListView(list), 200);
  });

  app.openapi(readRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("query");
    const list = await readWishlist({ shopId: caller.shopId, owner });
    const cartAttribute =
      owner.kind === "anonymous" && list?.anonymousId
        ? guestListAttribute(caller.shopId, list.id, list.anonymousId)
        : null;
    return c.json({ ...wishlistView(owner, list), cartAttribute }, 200);
  });

  app.openapi(toggleRoute, async (c) => {
    const reply = idempotentReply(c, (result: { added: boolean; count: number; itemId: string }) =>
      c.json({ added: result.added, count: result.count, itemId: result.itemId }, 200),
    );
    return reply.send(await toggleItem(saveInput(c.get("caller"), shopperOf(c), c.req.valid("json")), reply.unit));
  });

  app.openapi(addRoute, async (c) => {
    const reply = idempotentReply(c, (result: Awaited<ReturnType<typeof addItem>>) =>
      c.json(itemView(result.item), result.created ? 201 : 200),
    );
    return reply.send(await addItem(saveInput(c.get("caller"), shopperOf(c), c.req.valid("json")), reply.unit));
  });

  app.openapi(removeRoute, async (c) => {
    requireBodySent(await c.req.text());
    const caller = c.get("caller");
    const query = c.req.valid("query");
    const body = c.req.valid("json");
    const owner = shopperOf(c).owner("query");
    const target = query.itemId
      ? { itemId: parseId("item", query.itemId, "itemId") }
      : body.productId
        ? { productId: body.productId, variantId: body.variantId ?? null }
        : null;
    if (!target) {
      throw new AppError("validation-error", {
        detail: "Name the item: itemId in the query, or productId (and variantId) in the body.",
        errors: [{ pointer: "#/productId", detail: "required when itemId is not given" }],
      });
    }
    const listId = query.listId ?? body.listId;
    if (query.listId !== undefined && body.listId !== undefined && query.listId !== body.listId) {
      throw parameterProblem([{ path: ["listId"], message: "names another list than the body's listId" }]);
    }
    await removeItem({ shopId: caller.shopId, owner, target, listId, settings: caller.settings });
    return c.body(null, 204);
  });
}
