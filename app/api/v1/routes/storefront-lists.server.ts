/**
 * The shopper's named lists and item details (docs/decisions/046-named-lists.md): list, create, read,
 * rename, delete and share one list; an item's note and quantity; moving and copying an item between the
 * owner's lists. Every operation in all three storefront calling modes and with the customer account
 * extension's session token, the shopper named as for the other storefront calls (shopper.server.ts).
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { parseId } from "~/lib/ids";
import type { CountedListRow } from "~/data/list-rows.server";
import {
  createList,
  deleteList,
  listOwnerLists,
  listOwnerListsWithProducts,
  MAX_LIST_NAME,
  MAX_NOTE,
  moveItem,
  NAME_REFUSED,
  NOTE_REFUSED,
  readOwnerList,
  renameList,
  updateItem,
} from "~/services/wishlists/named-lists.server";
import { shopSettingsOf } from "~/services/shops/shops.server";
import { shareWishlist, stopSharingWishlist } from "~/services/wishlists/sharing.server";
import { itemView, storefrontListSummaryView, wishlistView } from "~/services/wishlists/views";
import type { V1Env } from "../context";
import { idempotentReply } from "../idempotency-key.server";
import { apiRoute } from "../route.server";
import { idParameter, jsonBody, jsonResponse, problemAnswer } from "../route-shapes";
import { ItemSchema, ShareSchema, Timestamp } from "../schemas";
import { OwnerInput, OwnerQuery, shopperOf } from "../shopper.server";
import { StorefrontListSchema, ShareResultSchema, OPEN_BODY, OWN_LIST_MODES, ListIdInput } from "./storefront.server";

const codePoints = (text: string) => Array.from(text).length;
/**
 * Characters that draw nothing: a name of these alone (and spaces) looks blank. The default ignorable code
 * points (the joiners, the Hangul fillers, the combining grapheme joiner, variation selectors...) and the
 * blank Braille pattern.
 */
const INVISIBLE = /\s|\p{Default_Ignorable_Code_Point}|\u2800/gu;

export const ListNameInput = z
  .string()
  .max(1_000)
  .refine((value) => {
    const length = codePoints(value.normalize("NFC").trim());
    return length >= 1 && length <= MAX_LIST_NAME;
  }, `must be 1-${MAX_LIST_NAME} characters, not counting spaces at either end`)
  .refine(
    (value) => !NAME_REFUSED.test(value),
    "must not hold control or format characters (line breaks, tabs, NUL, text direction overrides...)",
  )
  .refine((value) => value.replace(INVISIBLE, "") !== "", "must hold a visible character")
  .openapi({
    minLength: 1,
    maxLength: MAX_LIST_NAME,
    pattern: "\\S",
    example: "Gifts for Sam",
    description:
      `1-${MAX_LIST_NAME} characters (spaces at either end are dropped), no control characters. Unique per ` +
      "shopper, compared ignoring case.",
  });

const NoteInput = z
  .string()
  .max(2_000)
  .refine((value) => codePoints(value) <= MAX_NOTE, `must be at most ${MAX_NOTE} characters`)
  .refine(
    (value) => !NOTE_REFUSED.test(value),
    "must not hold control or format characters other than line breaks and tabs",
  )
  .nullable()
  .openapi({
    type: ["string", "null"],
    maxLength: MAX_NOTE,
    description:
      `Plain text, up to ${MAX_NOTE} characters (line breaks allowed); "" or null clears it. Stored as sent and ` +
      "shown as text, never as markup.",
    example: "size M for Sam",
  });

const QuantityInput = z.number().int().min(1).max(99).openapi({ description: "1-99." });

const StorefrontListSummarySchema = z
  .object({
    id: z
      .string()
      .nullable()
      .openapi({ description: "null for a default list not made yet (no item saved): reads never create lists." }),
    name: z.string(),
    default: z.boolean(),
    count: z.number().int(),
    share: ShareSchema,
    updatedAt: Timestamp.nullable(),
    products: z
      .array(
        z.object({
          itemId: z.string().openapi({ example: "itm_01J9Z8Q4V6S3N2M1K0H9G8F7E6" }),
          productId: z.string().openapi({ example: "7982301" }),
          variantId: z.string().nullable(),
          handle: z.string(),
        }),
      )
      .optional()
      .openapi({
        description:
          "Only with `include=products`: the products the list holds (newest first), each with its item id, so " +
          "a storefront can fill its hearts and tick a list picker without reading every list.",
      }),
  })
  .openapi("StorefrontListSummary");

const StorefrontListsSchema = z
  .object({
    data: z.array(StorefrontListSummarySchema).openapi({
      description: "The default list first, then the others oldest first. Never empty.",
    }),
    multipleLists: z.boolean().openapi({ description: "Whether the shop lets shoppers create named lists." }),
    maxLists: z.number().int().openapi({ description: "The most lists a shopper may keep, the default one included." }),
  })
  .openapi("StorefrontLists");

const ListIdParam = z.object({ listId: idParameter("listId", "list") });
const ItemIdParam = z.object({ itemId: idParameter("itemId", "item") });

const OWNER_REQUEST = {
  query: OwnerQuery,
  body: jsonBody(z.object(OwnerInput).openapi(OPEN_BODY), { required: false }),
};

const LIST_NOT_FOUND = {
  404: problemAnswer("The shopper has no such list (another shopper's, another shop's, or deleted): `not-found`"),
};

const listsRoute = apiRoute({
  method: "get",
  path: "/storefront/wishlists",
  tags: ["Storefront"],
  summary: "The shopper's lists",
  description:
    "Additive. Summaries (no items) of every list the shopper keeps: the default list first (as GET " +
    "/storefront/wishlist reads it, `id` null until it is made), then the named lists oldest first.",
  modes: OWN_LIST_MODES,
  request: {
    query: OwnerQuery.extend({
      include: z.enum(["products"]).optional().openapi({
        description: "`products`: each summary also names the products on the list (`products`).",
      }),
    }),
  },
  responses: { 200: jsonResponse("The shopper's lists", StorefrontListsSchema) },
});

const createRoute = apiRoute({
  method: "post",
  path: "/storefront/wishlists",
  tags: ["Storefront"],
  summary: "Create a named list",
  description:
    "Additive. Creates an empty list (emits list.created). 403 `multiple-lists-disabled` when the shop keeps one " +
    "list per shopper (settings.multipleLists); 409 `list-name-taken` when the shopper has a list of that name " +
    "(ignoring case), `too-many-lists` when they keep the most lists allowed (`maxLists`). The shopper's default " +
    "list is made first if it was not.",
  modes: OWN_LIST_MODES,
  request: {
    query: OwnerQuery,
    body: jsonBody(z.object({ name: ListNameInput, ...OwnerInput }).openapi(OPEN_BODY)),
  },
  responses: {
    201: jsonResponse("Created", StorefrontListSummarySchema),
    409: problemAnswer("`list-name-taken`, `too-many-lists`, or Idempotency key in use (`idempotency-key-in-use`)"),
  },
});

const readListRoute = apiRoute({
  method: "get",
  path: "/storefront/wishlists/{listId}",
  tags: ["Storefront"],
  summary: "One of the shopper's lists",
  description: "Additive. The list with its items, newest first, as GET /storefront/wishlist shows the default one.",
  modes: OWN_LIST_MODES,
  request: { params: ListIdParam, query: OwnerQuery },
  responses: { 200: jsonResponse("The list", StorefrontListSchema), ...LIST_NOT_FOUND },
});

const renameRoute = apiRoute({
  method: "patch",
  path: "/storefront/wishlists/{listId}",
  tags: ["Storefront"],
  summary: "Rename a list",
  description:
    "Additive. Renames one of the shopper's lists, the default one included (no event). 409 `list-name-taken` " +
    "when another of their lists has that name (ignoring case).",
  modes: OWN_LIST_MODES,
  request: {
    params: ListIdParam,
    query: OwnerQuery,
    body: jsonBody(z.object({ name: ListNameInput, ...OwnerInput }).openapi(OPEN_BODY)),
  },
  responses: {
    200: jsonResponse("Renamed", StorefrontListSummarySchema),
    ...LIST_NOT_FOUND,
    409: problemAnswer("`list-name-taken`"),
  },
});

const deleteRoute = apiRoute({
  method: "delete",
  path: "/storefront/wishlists/{listId}",
  tags: ["Storefront"],
  summary: "Delete a named list",
  description:
    "Additive. Deletes the list and its items (emits list.deleted; no item.removed for its items). 409 " +
    "`default-list` for the shopper's default list, which is kept (empty it instead). Its share link ends.",
  modes: OWN_LIST_MODES,
  request: { params: ListIdParam, ...OWNER_REQUEST },
  responses: {
    204: { description: "Deleted" },
    ...LIST_NOT_FOUND,
    409: problemAnswer("`default-list`"),
  },
});

const shareListRoute = apiRoute({
  method: "post",
  path: "/storefront/wishlists/{listId}/share",
  tags: ["Storefront"],
  summary: "Create a list's share link",
  description:
    "Additive. As POST /storefront/wishlist/share, for one of the shopper's lists: each list has its own link " +
    "(emits list.shared once).",
  modes: OWN_LIST_MODES,
  request: { params: ListIdParam, ...OWNER_REQUEST },
  responses: { 200: jsonResponse("The share link", ShareResultSchema), ...LIST_NOT_FOUND },
});

const unshareListRoute = apiRoute({
  method: "delete",
  path: "/storefront/wishlists/{listId}/share",
  tags: ["Storefront"],
  summary: "Turn a list's share link off",
  description: "Additive. As DELETE /storefront/wishlist/share, for one of the shopper's lists.",
  modes: OWN_LIST_MODES,
  request: { params: ListIdParam, ...OWNER_REQUEST },
  responses: { 204: { description: "The share link is off (or there was none)" }, ...LIST_NOT_FOUND },
});

const updateItemRoute = apiRoute({
  method: "patch",
  path: "/storefront/wishlist/items/{itemId}",
  tags: ["Storefront"],
  summary: "Change an item's note or quantity",
  description:
    "Additive. Sets `note` and/or `quantity` of one of the shopper's items, on whichever of their lists it " +
    "sits (emits item.updated naming what changed; the same values again change nothing and emit nothing). " +
    "An item of another shopper is a 404.",
  modes: OWN_LIST_MODES,
  request: {
    params: ItemIdParam,
    query: OwnerQuery,
    body: jsonBody(
      z.object({ note: NoteInput.optional(), quantity: QuantityInput.optional(), ...OwnerInput }).openapi(OPEN_BODY),
    ),
  },
  responses: {
    200: jsonResponse("The item as it is now", ItemSchema),
    404: problemAnswer("The shopper has no such item: `not-found`"),
  },
});

const moveItemRoute = apiRoute({
  method: "post",
  path: "/storefront/wishlist/items/{itemId}/move",
  tags: ["Storefront"],
  summary: "Move or copy an item to another list",
  description:
    "Additive. Moves one of the shopper's items to another of their lists (`listId`), keeping its note, " +
    "quantity and date (emits item.removed on the list it leaves and item.added on the one it joins, naming " +
    "each other; the analytics count no new save). With `copy: true` it stays where it is and a copy joins the " +
    "list (201, emits item.added). 409 `item-in-list` when that list holds the product already, `list-full` " +
    "when it is full; 404 for an item or a list the shopper does not have.",
  modes: OWN_LIST_MODES,
  request: {
    params: ItemIdParam,
    query: OwnerQuery,
    body: jsonBody(
      z
        .object({
          listId: ListIdInput.openapi({ description: "The shopper's list to move (or copy) the item to." }),
          copy: z.boolean().optional().openapi({ description: "true: copy rather than move. Default false." }),
          ...OwnerInput,
        })
        .openapi(OPEN_BODY),
    ),
  },
  responses: {
    200: jsonResponse("Moved: the item as it is now", ItemSchema),
    201: jsonResponse("Copied: the new item", ItemSchema),
    404: problemAnswer("The shopper has no such item or list: `not-found`"),
    409: problemAnswer("`item-in-list`, `list-full`, or Idempotency key in use (`idempotency-key-in-use`)"),
  },
});

export function registerStorefrontListRoutes(app: OpenAPIHono<V1Env>) {
  app.openapi(listsRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("query");
    const settings = caller.settings ?? (await shopSettingsOf(caller.shopId)).settings;
    const input = { shopId: caller.shopId, owner };
    const data =
      c.req.valid("query").include === "products"
        ? (await listOwnerListsWithProducts(input)).map((list) => ({
            ...storefrontListSummaryView(list),
            products: list.products,
          }))
        : (await listOwnerLists(input)).map(storefrontListSummaryView);
    return c.json(
      {
        data,
        multipleLists: settings.multipleLists,
        maxLists: settings.maxListsPerOwner,
      },
      200,
    );
  });

  app.openapi(createRoute, async (c) => {
    const caller = c.get("caller");
    const { name } = c.req.valid("json");
    const owner = shopperOf(c).owner("body");
    const reply = idempotentReply(c, (list: CountedListRow) => c.json(storefrontListSummaryView(list), 201));
    return reply.send(await createList({ shopId: caller.shopId, owner, name, settings: caller.settings }, reply.unit));
  });

  app.openapi(readListRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("query");
    const listId = parseId("list", c.req.valid("param").listId, "listId");
    const list = await readOwnerList({ shopId: caller.shopId, owner, listId });
    return c.json({ ...wishlistView(owner, list), default: list.isDefault === true }, 200);
  });

  app.openapi(renameRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("body");
    const listId = parseId("list", c.req.valid("param").listId, "listId");
    const { name } = c.req.valid("json");
    const list = await renameList({ shopId: caller.shopId, owner, listId, name, settings: caller.settings });
    return c.json(storefrontListSummaryView(list), 200);
  });

  app.openapi(deleteRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("query");
    const listId = parseId("list", c.req.valid("param").listId, "listId");
    await deleteList({ shopId: caller.shopId, owner, listId, settings: caller.settings });
    return c.body(null, 204);
  });

  app.openapi(shareListRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("query");
    const listId = parseId("list", c.req.valid("param").listId, "listId");
    const reply = idempotentReply(c, ({ listId, token, url }: { listId: string; token: string; url: string }) =>
      c.json({ listId, token, url, enabled: true as const }, 200),
    );
    return reply.send(await shareWishlist({ shopId: caller.shopId, owner, listId }, reply.unit));
  });

  app.openapi(unshareListRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("query");
    const listId = parseId("list", c.req.valid("param").listId, "listId");
    await stopSharingWishlist({ shopId: caller.shopId, owner, listId });
    return c.body(null, 204);
  });

  app.openapi(updateItemRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("body");
    const itemId = parseId("item", c.req.valid("param").itemId, "itemId");
    const { note, quantity } = c.req.valid("json");
    const item = await updateItem({
      shopId: caller.shopId,
      owner,
      itemId,
      changes: { note, quantity },
      settings: caller.settings,
    });
    return c.json(itemView(item), 200);
  });

  app.openapi(moveItemRoute, async (c) => {
    const caller = c.get("caller");
    const owner = shopperOf(c).owner("body");
    const itemId = parseId("item", c.req.valid("param").itemId, "itemId");
    const { listId, copy = false } = c.req.valid("json");
    const reply = idempotentReply(c, (item: Awaited<ReturnType<typeof moveItem>>) =>
      c.json(itemView(item), copy ? 201 : 200),
    );
    return reply.send(
      await moveItem(
        { shopId: caller.shopId, owner, itemId, toListId: listId, copy, settings: caller.settings },
        reply.unit,
      ),
    );
  });
}
