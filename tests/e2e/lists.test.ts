import type { FrameLocator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { database, transaction } from "~/data/database.server";
import { fillProductSnapshot } from "~/data/item-rows.server";
import { updateShopSettings } from "~/services/shops/shops.server";
import { createList, updateItem } from "~/services/wishlists/named-lists.server";
import { shareWishlist } from "~/services/wishlists/sharing.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createShop } from "../factories";
import {
  appFrame,
  expectNoPageErrors,
  screenshot,
  seriousAccessibilityViolations,
  useAdminStack,
} from "./support/admin";
import { clickWhenHydrated } from "./support/interaction";
import { waitForHydration } from "./support/page-state";

const stack = useAdminStack({ worker: false });

/**
 * More lists than one page holds (25): customer 7001's (Ada Lovelace's, in the stand-in's customers) with
 * two products, shared, and her named list "Gifts for Sam" with a third product; then 9000-9025's
 * (customers the platform does not know), one to four products each.
 */
const OTHER_CUSTOMERS = Array.from({ length: 26 }, (_, index) => String(9000 + index));
const base = Date.UTC(2026, 0, 1);

interface ListPage {
  data: Array<{ id: string; name: string; default: boolean; owner: { customerId: string | null } }>;
}

/** A shopper's note with markup in it: the admin must show it as the text it is, never run or render it. */
const MARKUP_NOTE = `<img src="x" onerror="window.noteRan = true"> <b>Size M</b> for Sam & "friends"`;

beforeAll(async () => {
  const products = stack.standInShop.products;
  const [shirt, coat] = products;
  const shopId = stack.shop.id;
  const ada = { kind: "customer" as const, customerId: "7001" };
  const at = new Date(base);
  const shirtSaved = await toggleItem({
    shopId,
    owner: ada,
    item: { productId: shirt!.id, handle: shirt!.handle, title: shirt!.title },
    at,
  });
  await toggleItem({ shopId, owner: ada, item: { productId: coat!.id, handle: coat!.handle, title: coat!.title }, at });
  await shareWishlist({ shopId, owner: ada });
  // Ada's second list, a named one, holding a third product: three of them, with a note full of markup. Her
  // shirt on her default list: two, with a plain note.
  await updateShopSettings({ shopId, patch: { multipleLists: true } });
  const gifts = await createList({ shopId, owner: ada, name: "Gifts for Sam" });
  const scarf = products[2]!;
  const gift = await toggleItem({
    shopId,
    owner: ada,
    listId: gifts.id,
    item: { productId: scarf.id, handle: scarf.handle, title: scarf.title },
  });
  await updateItem({ shopId, owner: ada, itemId: gift.itemId, changes: { note: MARKUP_NOTE, quantity: 3 } });
  await updateItem({
    shopId,
    owner: ada,
    itemId: shirtSaved.itemId,
    changes: { note: "Gift wrap, please", quantity: 2 },
  });
  // The platform has answered for the shirt (as the worker's lookup does; this file runs no worker); the
  // coat's title is still only what its shoppers sent (decision 029).
  await transaction((tx) =>
    fillProductSnapshot(tx, shopId, { productId: shirt!.id, title: shirt!.title, handle: shirt!.handle }, new Date()),
  );
  for (const [index, customerId] of OTHER_CUSTOMERS.entries()) {
    // Updated a minute apart, every third one at the same minute as the one before (the id breaks the tie).
    const updated = new Date(base + (index - Math.floor(index / 3)) * 60_000 + 60_000);
    for (const product of [coat!, ...products.slice(2, 2 + (index % 4))]) {
      await toggleItem({
        shopId,
        owner: { kind: "customer", customerId },
        item: { productId: product.id, handle: product.handle, title: product.title },
        at: updated,
      });
    }
  }
  // Another shop, with a list of Ada's holding more than any list of this shop: it must never show here.
  const other = await createShop();
  for (const product of products) {
    await toggleItem({
      shopId: other.id,
      owner: ada,
      item: { productId: product.id, handle: product.handle, title: product.title },
    });
  }
});

/** The table's rows (header excluded) as the first line of their owner cells. */
async function owners(app: FrameLocator): Promise<string[]> {
  const rows = app.getByRole("table").getByRole("row");
  return (await rows.allInnerTexts()).slice(1).map((row) => row.split("\t")[1]!.trim().split("\n")[0]!.trim());
}

/** The shop's lists as the database holds them, owners as the page names them, in the order `sort` names. */
async function expectedOwners(sort: "updated-desc" | "items-desc" | "items-asc") {
  const rows = await database()
    .selectFrom("List")
    .select(["id", "customerId", "updatedAt"])
    .select((eb) =>
      eb
        .selectFrom("Item")
        .select((inner) => inner.fn.countAll<number>().as("n"))
        .whereRef("Item.listId", "=", "List.id")
        .as("n"),
    )
    .where("shopId", "=", stack.shop.id)
    .where("retiredAt", "is", null)
    .execute();
  const value = (row: (typeof rows)[number]) => (sort === "updated-desc" ? row.updatedAt.getTime() : Number(row.n));
  const sign = sort === "items-asc" ? 1 : -1;
  return rows
    .sort((a, b) => sign * (value(a) - value(b) || (a.id < b.id ? -1 : 1)))
    .map((row) => (row.customerId === "7001" ? "Ada Lovelace" : `Customer ${row.customerId}`));
}

/** The list page's table of items (the page also has a table of the owner's lists). */
const itemsTable = (app: FrameLocator) => app.getByRole("table").filter({ hasText: "In the admin" });

/** The rows of the list page's table of the owner's lists: the name cell's words, then the item count. */
async function ownerListRows(app: FrameLocator): Promise<string[][]> {
  const table = app.getByRole("table").filter({ hasText: "This list" });
  return (await table.getByRole("row").allInnerTexts()).slice(1).map((row) => {
    const [name, count] = row.split("\t");
    return [...name!.split(/\s*\n\s*|\s{2,}/).filter((word) => word.trim() !== ""), count!.trim()].map((cell) =>
      cell.trim(),
    );
  });
}

/** Opens the search and filters (IndexFilters' filtering mode) once the page has hydrated. */
async function openFilters(page: Page, app: FrameLocator) {
  await waitForHydration(page);
  const search = app.getByRole("textbox", { name: "Search by customer name, email or ID" });
  if (!(await search.isVisible()))
    await clickWhenHydrated(app.getByRole("button", { name: "Search and filter lists" }));
  await search.waitFor({ timeout: 90_000 });
  return search;
}

describe("Lists", { timeout: 180_000 }, () => {
  it("names owners as the shop knows them, newest update first, and pages with next and previous", async () => {
    const expected = await expectedOwners("updated-desc");
    expect(expected).toHaveLength(28);

    const { context, page, app } = await stack.openAdmin("/lists");
    await app.getByRole("table").waitFor({ timeout: 90_000 });
    expect(await owners(app)).toEqual(expected.slice(0, 25));
    // The platform's name, with the email and the id below it; customers it does not know, by id. Each of
    // Ada's two lists: its name (her default one marked), and how many lists she keeps.
    const ada = app.getByRole("row", { name: /Wishlist of Ada Lovelace/ });
    expect(await ada.innerText()).toContain("ada@example.com");
    expect(await ada.innerText()).toContain("ID 7001");
    expect(await ada.innerText()).toMatch(/Wishlist\s+Default list/);
    expect(await ada.getByRole("link", { name: "2 lists of Ada Lovelace" }).isVisible()).toBe(true);
    const gifts = app.getByRole("row", { name: /Gifts for Sam of Ada Lovelace/ });
    expect(await gifts.innerText()).not.toContain("Default list");
    expect(await gifts.getByRole("link", { name: "2 lists of Ada Lovelace" }).isVisible()).toBe(true);
    // An owner with one list is not told so on every row.
    const lonely = await app.getByRole("row", { name: /Customer 9025/ }).innerText();
    expect(lonely.split("\t")[1]!.trim()).toBe("Customer 9025");
    expect(await app.getByText("Customer names could not be loaded").count()).toBe(0);
    const previous = app.getByRole("button", { name: "Previous page of lists" });
    const next = app.getByRole("button", { name: "Next page of lists" });
    expect(await previous.isDisabled()).toBe(true);

    await clickWhenHydrated(next);
    await page.waitForURL(/cursor=/, { timeout: 90_000 });
    await expect.poll(() => owners(app)).toEqual(expected.slice(25));
    expect(await next.isDisabled()).toBe(true);

    await previous.click();
    await expect.poll(() => owners(app)).toEqual(expected.slice(0, 25));
    expect(await previous.isDisabled()).toBe(true);
    // The way back is a cursor too: reloading shows the same page.
    await page.reload();
    await app.getByRole("table").waitFor({ timeout: 90_000 });
    expect(await owners(app)).toEqual(expected.slice(0, 25));

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "lists");
    await context.close();
  });

  it("sorts by item count from the column heading, both ways, across pages", async () => {
    const { context, page, app } = await stack.openAdmin("/lists");
    await app.getByRole("table").waitFor({ timeout: 90_000 });
    await waitForHydration(page);
    // The heading sorts most first, then, clicked again, fewest first.
    const items = app.getByRole("table").getByRole("button", { name: "Items", exact: true });
    await clickWhenHydrated(items);
    await page.waitForURL(/sort=items-desc/, { timeout: 90_000 });
    const most = await expectedOwners("items-desc");
    await expect.poll(() => owners(app)).toEqual(most.slice(0, 25));
    await clickWhenHydrated(app.getByRole("button", { name: "Next page of lists" }));
    await expect.poll(() => owners(app)).toEqual(most.slice(25));

    await clickWhenHydrated(items);
    await page.waitForURL(/sort=items-asc/, { timeout: 90_000 });
    // A new order starts at its first page.
    expect(page.url()).not.toMatch(/cursor=/);
    const fewest = await expectedOwners("items-asc");
    await expect.poll(() => owners(app)).toEqual(fewest.slice(0, 25));
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await context.close();
  });

  it("filters by customer email, name and id, and by product, never showing another shop's lists", async () => {
    const { context, page, app } = await stack.openAdmin("/lists");
    await app.getByRole("table").waitFor({ timeout: 90_000 });
    const search = await openFilters(page, app);

    await search.fill("ada@example.com");
    await page.waitForURL(/customer=ada%40example\.com/, { timeout: 90_000 });
    await expect.poll(() => owners(app)).toEqual(["Ada Lovelace", "Ada Lovelace"]);
    // Ada's lists of this shop: her default one with its two products, shared (the other shop's list of
    // hers holds twelve), and her named one with one.
    const itemsOf = async (name: RegExp) => (await app.getByRole("row", { name }).innerText()).split("\t")[2]!.trim();
    expect(await app.getByRole("row", { name: /Wishlist of Ada Lovelace/ }).innerText()).toContain("Shared");
    expect(await itemsOf(/Wishlist of Ada Lovelace/)).toBe("2");
    expect(await itemsOf(/Gifts for Sam of Ada Lovelace/)).toBe("1");

    await search.fill("Lovelace");
    await page.waitForURL(/customer=Lovelace/, { timeout: 90_000 });
    await expect.poll(() => owners(app)).toEqual(["Ada Lovelace", "Ada Lovelace"]);

    // Zero-padded digits name the same customer (the API's canonical form), with spaces around them.
    await search.fill(" 0007001 ");
    await page.waitForURL(/customer=0007001/, { timeout: 90_000 });
    await expect.poll(() => owners(app)).toEqual(["Ada Lovelace", "Ada Lovelace"]);

    await search.fill("9003");
    await expect.poll(() => owners(app)).toEqual(["Customer 9003"]);

    // A customer without lists: an empty state, not an error.
    await search.fill("grace@example.com");
    await app.getByText("No lists match these filters").waitFor({ timeout: 90_000 });
    expect(await app.getByRole("table").count()).toBe(0);

    // By product: part of its title, any case, alone and with the customer.
    await search.fill("");
    await expect.poll(() => page.url()).not.toMatch(/customer=/);
    await clickWhenHydrated(app.getByRole("button", { name: "Product" }));
    await app.getByRole("textbox", { name: "Product ID or title" }).fill("aurora LINEN");
    await page.waitForURL(/product=aurora\+LINEN/, { timeout: 90_000 });
    await expect.poll(() => owners(app)).toEqual(["Ada Lovelace"]);
    const [, coat] = stack.standInShop.products;
    await app.getByRole("textbox", { name: "Product ID or title" }).fill(coat!.id);
    await page.waitForURL(new RegExp(`product=${coat!.id}`), { timeout: 90_000 });
    await expect.poll(() => owners(app).then((rows) => rows.length)).toBe(25);
    await search.click();
    await search.fill("ada@example.com");
    // Only her default list holds the coat.
    await expect.poll(() => owners(app)).toEqual(["Ada Lovelace"]);

    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "lists-filtered");

    // An id past 64 bits is refused inline.
    await search.fill("99999999999999999999");
    await app.getByText(/^Customer ID must be at most/).waitFor({ timeout: 90_000 });
    expect(await app.getByRole("table").count()).toBe(0);
    expectNoPageErrors(page);
    await context.close();
  });

  it("shows owners by id, and says why, when the platform does not answer", async () => {
    // Katherine (7004) has not been shown yet, so no name of hers is in the server's memory.
    const [shirt] = stack.standInShop.products;
    await toggleItem({
      shopId: stack.shop.id,
      owner: { kind: "customer", customerId: "7004" },
      item: { productId: shirt!.id, handle: shirt!.handle, title: shirt!.title },
    });
    const session = database().updateTable("Session").where("id", "=", `offline_${stack.shop.domain}`);
    // The platform refuses the token (as for an uninstalled shop): every Admin API call fails.
    await session.set({ accessToken: "shpat_revoked" }).execute();
    try {
      const { context, page, app } = await stack.openAdmin("/lists?customer=7004");
      await app.getByText("Customer names could not be loaded").waitFor({ timeout: 90_000 });
      expect(await owners(app)).toEqual(["Customer 7004"]);
      expect(await seriousAccessibilityViolations(page)).toEqual([]);
      expectNoPageErrors(page);

      const search = await openFilters(page, app);
      await search.fill("katherine");
      await app.getByText("Customers could not be searched").waitFor({ timeout: 90_000 });
      expect(await app.getByRole("table").count()).toBe(0);
      expectNoPageErrors(page);

      const { context: detailContext, page: detailPage, app: detail } = await stack.openAdmin(`/lists?customer=7004`);
      await clickWhenHydrated(detail.getByRole("link", { name: "Wishlist of Customer 7004" }));
      await detail.getByText("The customer's name could not be loaded").waitFor({ timeout: 90_000 });
      expect(await detail.getByText("Customer 7004", { exact: true }).isVisible()).toBe(true);
      expectNoPageErrors(detailPage);
      await detailContext.close();
      await context.close();
    } finally {
      await session.set({ accessToken: stack.standInShop.accessToken }).execute();
    }
    // The platform answers again: the name is read then (a failure is never kept).
    const { context, app } = await stack.openAdmin("/lists?customer=7004");
    await expect.poll(() => owners(app)).toEqual(["Katherine Johnson"]);
    await context.close();
  });

  it("opens a list: owner, sharing, items, and each product in the platform's admin", async () => {
    const [shirt, coat] = stack.standInShop.products;
    const { context, page, app } = await stack.openAdmin("/lists?customer=7001");
    await clickWhenHydrated(app.getByRole("link", { name: "Wishlist of Ada Lovelace" }));
    await app.getByRole("heading", { name: "Sharing" }).waitFor({ timeout: 90_000 });

    const adasLists = (await (await stack.api("/lists?customerId=7001")).json()) as ListPage;
    const defaultList = adasLists.data.find((summary) => summary.default)!;
    const list = (await (await stack.api(`/lists/${defaultList.id}`)).json()) as {
      share: { token: string };
      items: Array<{
        productId: string;
        handle: string;
        titleSnapshot: string;
        addedAt: string;
        note: string | null;
        quantity: number;
      }>;
    };
    expect(await app.getByText("Ada Lovelace", { exact: true }).isVisible()).toBe(true);
    expect(await app.getByText("ada@example.com", { exact: true }).isVisible()).toBe(true);
    expect(await app.getByText("Customer ID 7001", { exact: true }).isVisible()).toBe(true);
    expect(
      await app.getByText(`https://${stack.shop.domain}/pages/wishlist?share=${list.share.token}`).isVisible(),
    ).toBe(true);
    const rows = (await itemsTable(app).getByRole("row").allInnerTexts())
      .slice(1)
      .map((row) => row.split("\t").map((cell) => cell.trim()));
    const utc = (iso: string) =>
      `${new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })} UTC`;
    expect(rows.map((row) => row.slice(1))).toEqual(
      list.items.map((item) => [
        String(item.quantity),
        item.note ?? "No note",
        // The catalogue's handle; the coat's is still the one its shoppers sent, marked (decision 029).
        item.productId === shirt!.id ? item.handle : `Sent by the shopper, not from the catalogue: ${item.handle}`,
        utc(item.addedAt),
        `Open product ${item.productId}`,
      ]),
    );
    // The shirt by its catalogue title; the coat, not yet looked up, by its id, with its shoppers' title marked.
    expect(rows.map((row) => row[0]!.split(/\s*\n\s*/))).toEqual([
      [`Product ${coat!.id}`, `Title sent by the shopper, not from the catalogue: ${coat!.title}`],
      [shirt!.title],
    ]);
    // Two shirts, noted; one coat, without a note.
    expect(rows.map((row) => row.slice(1, 3))).toEqual([
      ["1", "No note"],
      ["2", "Gift wrap, please"],
    ]);
    // Her other list is one link away, with its item count.
    expect(await app.getByRole("heading", { name: "Lists of Ada Lovelace" }).isVisible()).toBe(true);
    expect(await ownerListRows(app)).toEqual([
      ["Wishlist", "Default list", "This list", "2"],
      ["Gifts for Sam", "1"],
    ]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "list-detail");

    // The product link opens the product in the platform's admin (the stand-in's product page).
    const link = app.getByRole("link", { name: `Open product ${shirt!.id}` });
    expect(await link.getAttribute("href")).toBe(`shopify://admin/products/${shirt!.id}`);
    await link.click();
    await page.waitForURL(new RegExp(`/products/${shirt!.id}$`), { timeout: 90_000 });
    expect(await page.getByRole("heading", { name: shirt!.title }).isVisible()).toBe(true);
    await context.close();
  });

  it("finds a customer's named list by name, and shows its notes as text and its quantities", async () => {
    const [shirt, , scarf] = stack.standInShop.products;
    const { context, page, app } = await stack.openAdmin("/lists");
    await app.getByRole("table").waitFor({ timeout: 90_000 });
    // "2 lists" beside Ada shows both of them (the customer filter).
    await clickWhenHydrated(app.getByRole("link", { name: "2 lists of Ada Lovelace" }).first());
    await page.waitForURL(/customer=7001/, { timeout: 90_000 });
    await expect.poll(() => owners(app)).toEqual(["Ada Lovelace", "Ada Lovelace"]);
    // The page shows it is filtered: the search field is open with the customer in it.
    const search = app.getByRole("textbox", { name: "Search by customer name, email or ID" });
    await expect.poll(() => search.isVisible().then((visible) => (visible ? search.inputValue() : null))).toBe("7001");
    await openFilters(page, app);
    // The list name filter: part of the name, any case.
    await clickWhenHydrated(app.getByRole("button", { name: "List name" }));
    await app.getByRole("textbox", { name: "List name contains" }).fill("GIFTS");
    await page.waitForURL(/name=GIFTS/, { timeout: 90_000 });
    await expect.poll(() => owners(app)).toEqual(["Ada Lovelace"]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    await clickWhenHydrated(app.getByRole("link", { name: "Gifts for Sam of Ada Lovelace" }));
    await app.getByRole("heading", { name: "Lists of Ada Lovelace" }).waitFor({ timeout: 90_000 });
    expect(await app.getByRole("heading", { name: "Gifts for Sam", exact: true }).isVisible()).toBe(true);
    expect(await app.getByText("Named list", { exact: true }).isVisible()).toBe(true);
    const rows = (await itemsTable(app).getByRole("row").allInnerTexts())
      .slice(1)
      .map((row) => row.split("\t").map((cell) => cell.trim()));
    expect(rows.map((row) => row.slice(1, 3))).toEqual([["3", MARKUP_NOTE]]);
    expect(rows[0]![0]).toContain(scarf!.id);
    // The note is text: its markup is shown, not rendered, and its script never ran.
    const frame = await appFrame(page);
    expect(await itemsTable(app).locator("img").count()).toBe(0);
    expect(await itemsTable(app).locator("b").count()).toBe(0);
    expect(await frame.evaluate(() => (window as { noteRan?: boolean }).noteRan)).toBeUndefined();
    expect(await ownerListRows(app)).toEqual([
      ["Wishlist", "Default list", "2"],
      ["Gifts for Sam", "This list", "1"],
    ]);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    expectNoPageErrors(page);
    await screenshot(page, "list-detail-named");

    // Her default list, from the table of her lists.
    await clickWhenHydrated(app.getByRole("link", { name: "Wishlist", exact: true }));
    await expect
      .poll(() => ownerListRows(app))
      .toEqual([
        ["Wishlist", "Default list", "This list", "2"],
        ["Gifts for Sam", "1"],
      ]);
    expect(await itemsTable(app).innerText()).toContain(shirt!.title);
    expect(await itemsTable(app).innerText()).not.toContain(scarf!.id);
    expectNoPageErrors(page);
    await context.close();
  });

  it("shows a clear not-found state for another shop's list and for an id that is not a list id", async () => {
    const other = await createShop();
    const [shirt] = stack.standInShop.products;
    await toggleItem({
      shopId: other.id,
      owner: { kind: "customer", customerId: "7001" },
      item: { productId: shirt!.id, handle: shirt!.handle },
    });
    const { listsOf } = await import("../support/wishlist-rows");
    const [othersList] = await listsOf(other.id);

    for (const id of [othersList!.id, othersList!.id.replace(/^lst_/, "itm_"), "not-an-id"]) {
      const { context, page, app } = await stack.openAdmin(`/lists/${id}`);
      await app.getByText("List not found", { exact: true }).waitFor({ timeout: 90_000 });
      expect(await app.getByText(`no list with the ID "${id}"`).isVisible()).toBe(true);
      expect(await app.getByRole("table").count()).toBe(0);
      // The document answers 404, as a missing page should.
      expectNoPageErrors(page, [new RegExp(`^HTTP 404 GET .*/app/lists/${id}\\?`)]);
      await context.close();
    }
  });
});
