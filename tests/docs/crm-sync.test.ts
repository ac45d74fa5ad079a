/**
 * docs/recipes/crm-sync.md (issue 31): the recipe's full sync and webhook listener against the real web process
 * and worker. The CRM ends holding exactly the customers' lists and items the service holds: after a full sync
 * over more than one page of lists, after changes of every kind the listener hears of (saves, removals, a note,
 * a new customer, a guest merged at login, named lists deleted), and after a rename, which sends no event and
 * which the next full sync brings.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { createWishlistClient, paginate, type WishlistClient } from "../../sdk/src/index";
import { createList, createShopWithKey } from "../factories";
import { readEnvText, runExampleOk, startExample, useService } from "../support/examples";
import { until } from "../support/poll";
import { freePort } from "../support/processes";

const { baseUrl } = await useService();
const dir = mkdtempSync(path.join(tmpdir(), "crm-sync-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EVENTS = ["item.added", "item.removed", "item.updated", "list.created", "list.deleted", "list.merged"];

/** What the CRM should hold: every customer list of the shop, as the API shows it now. */
async function customerLists(wishlist: WishlistClient) {
  const lists: Record<string, unknown> = {};
  for await (const summary of paginate((cursor) =>
    wishlist.GET("/lists", { params: { query: { cursor, limit: 100 } } }),
  )) {
    if (summary.owner.type !== "customer") continue;
    const list = (await wishlist.GET("/lists/{id}", { params: { path: { id: summary.id } } })).data!;
    lists[list.id] = {
      listId: list.id,
      customerId: summary.owner.customerId,
      name: list.name,
      updatedAt: list.updatedAt,
      items: list.items.map(({ id, productId, variantId, addedAt, note, quantity }) => ({
        itemId: id,
        productId,
        variantId,
        addedAt,
        note,
        quantity,
      })),
    };
  }
  return lists;
}

describe("the CRM sync recipe", () => {
  it("leaves the CRM holding exactly the customers' lists and items, through full syncs and webhooks", async () => {
    const { shop, secret } = await createShopWithKey();
    const wishlist = createWishlistClient({ baseUrl, privateKey: secret });
    await wishlist.PATCH("/shop/settings", { body: { multipleLists: true } });
    const save = (customerId: string, productId: string, listId?: string) =>
      wishlist.POST("/storefront/wishlist/items", {
        params: { query: { customerId } },
        body: { productId, handle: `product-${productId}`, ...(listId ? { listId } : {}) },
      });

    // Before anything listens: more lists than one page holds, and saves through the API.
    for (let index = 0; index < 103; index++) {
      await createList(shop.id, { customerId: String(9500 + index) }, { isDefault: true, name: "Wishlist" });
    }
    await save("9001", "8100000001");
    await save("9001", "8100000002");
    const birthday = (
      await wishlist.POST("/storefront/wishlists", {
        params: { query: { customerId: "9002" } },
        body: { name: "Birthday" },
      })
    ).data!;
    const gift = (await save("9002", "8100000003", birthday.id!)).data!;
    const guest = randomUUID();
    await wishlist.POST("/storefront/wishlist/items", {
      params: { query: { aid: guest } },
      body: { productId: "8100000006", handle: "product-8100000006" },
    });

    const crmFile = path.join(dir, "crm.json");
    const env = { WISHLIST_URL: baseUrl, WISHLIST_PRIVATE_KEY: secret, CRM_FILE: crmFile };
    const crm = () => (existsSync(crmFile) ? JSON.parse(readFileSync(crmFile, "utf8")) : {});
    const port = await freePort();
    const registered = await runExampleOk("getting-started/register-webhook.ts", env, [
      `http://localhost:${port}/webhooks`,
      ...EVENTS,
    ]);
    const listener = startExample(
      "recipes/crm-sync.ts",
      { ...env, ...readEnvText(registered.stdout), PORT: String(port) },
      ["listen"],
    );
    try {
      await listener.waitForOutput(/listening on http:\/\/localhost:\d+\/webhooks/);

      const full = await runExampleOk("recipes/crm-sync.ts", env, ["full"]);
      const expected = await customerLists(wishlist);
      expect(Object.keys(expected)).toHaveLength(106); // the 103, 9001's list, 9002's default list and Birthday
      expect(full.stdout).toBe(`full sync: {"created":106}\n`);
      expect(crm()).toEqual(expected);
      expect((await runExampleOk("recipes/crm-sync.ts", env, ["full"])).stdout).toBe(`full sync: {"unchanged":106}\n`);

      // Changes of every kind, each announced by a webhook only.
      await wishlist.DELETE("/storefront/wishlist/items", {
        params: { query: { customerId: "9001" } },
        body: { productId: "8100000001" },
      });
      await save("9001", "8100000004");
      await wishlist.PATCH("/storefront/wishlist/items/{itemId}", {
        params: { path: { itemId: gift.id }, query: { customerId: "9002" } },
        body: { note: "size M", quantity: 2 },
      });
      await save("9003", "8100000005");
      await wishlist.POST("/storefront/identify", { body: { anonymousId: guest, customerId: "9004" } });
      const doomed = (
        await wishlist.POST("/storefront/wishlists", {
          params: { query: { customerId: "9003" } },
          body: { name: "Maybe" },
        })
      ).data!;
      await save("9003", "8100000007", doomed.id!);
      await wishlist.DELETE("/storefront/wishlists/{listId}", {
        params: { path: { listId: doomed.id! }, query: { customerId: "9003" } },
      });

      await wishlist.DELETE("/storefront/wishlists/{listId}", {
        params: { path: { listId: birthday.id! }, query: { customerId: "9002" } },
      });

      const changed = await customerLists(wishlist);
      expect(Object.keys(changed)).toHaveLength(107); // 9003's and 9004's default lists came, Birthday went
      await until(
        () => crm(),
        (held) => isDeepStrictEqual(held, changed),
        "the CRM holding the lists as changed",
      );
      expect(crm()).toEqual(changed);
      expect(Object.values(crm()).map((list) => (list as { customerId: string }).customerId)).not.toContain(null);
      // A list the CRM held is removed; one deleted before its first event was read may never have reached it.
      expect(crm()[birthday.id!]).toBeUndefined();
      expect(listener.output()).toMatch(new RegExp(`${birthday.id}: deleted`));
      expect(crm()[doomed.id!]).toBeUndefined();
      expect(listener.output()).toMatch(new RegExp(`list\\.deleted ${doomed.id}: (deleted|unchanged)`));
      expect(listener.output()).toMatch(/list\.merged lst_\w+: (created|updated)/);

      // A rename sends no event: the next full sync reads the one list that changed.
      const nineThousandOne = Object.values(changed).find(
        (list) => (list as { customerId: string }).customerId === "9001",
      ) as { listId: string };
      await wishlist.PATCH("/storefront/wishlists/{listId}", {
        params: { path: { listId: nineThousandOne.listId }, query: { customerId: "9001" } },
        body: { name: "Favourites" },
      });
      expect((await runExampleOk("recipes/crm-sync.ts", env, ["full"])).stdout).toBe(
        `full sync: {"unchanged":106,"updated":1}\n`,
      );
      expect(crm()[nineThousandOne.listId]).toMatchObject({ name: "Favourites" });
      expect(crm()).toEqual(await customerLists(wishlist));
    } finally {
      await listener.stop();
    }
  });
});
