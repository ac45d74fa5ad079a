import type { FrameLocator } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { transaction } from "~/data/database.server";
import { fillProductSnapshot } from "~/data/item-rows.server";
import { shareWishlist } from "~/services/wishlists/sharing.server";
import { toggleItem } from "~/services/wishlists/wishlists.server";
import { createShop } from "../factories";
import { expectNoPageErrors, screenshot, seriousAccessibilityViolations, useAdminStack } from "./support/admin";

const stack = useAdminStack({ worker: false });

/** More lists than one page holds (25): customer 7001's shared list first, then 9000-9025's. */
const OTHER_CUSTOMERS = Array.from({ length: 26 }, (_, index) => String(9000 + index));

interface ListPage {
  data: Array<{ id: string; owner: { customerId: string | null } }>;
  pageInfo: { nextCursor: string | null };
}

beforeAll(async () => {
  const [shirt, coat] = stack.standInShop.products;
  const shopId = stack.shop.id;
  const ada = { kind: "customer" as const, customerId: "7001" };
  await toggleItem({ shopId, owner: ada, item: { productId: shirt!.id, handle: shirt!.handle, title: shirt!.title } });
  await toggleItem({ shopId, owner: ada, item: { productId: coat!.id, handle: coat!.handle, title: coat!.title } });
  await shareWishlist({ shopId, owner: ada });
  // The platform has answered for the shirt (as the worker's lookup does; this file runs no worker); the
  // coat's title is still only what its shoppers sent (decision 029).
  await transaction((tx) =>
    fillProductSnapshot(tx, shopId, { productId: shirt!.id, title: shirt!.title, handle: shirt!.handle }, new Date()),
  );
  for (const customerId of OTHER_CUSTOMERS) {
    await toggleItem({
      shopId,
      owner: { kind: "customer", customerId },
      item: { productId: coat!.id, handle: coat!.handle, title: coat!.title },
    });
  }
});

/** The table's rows (header excluded) as their owner cells. */
async function owners(app: FrameLocator): Promise<string[]> {
  const rows = app.getByRole("table").getByRole("row");
  return (await rows.allInnerTexts()).slice(1).map((row) => row.split("\t")[1]!.trim());
}

async function allListsFromApi() {
  const lists: ListPage["data"] = [];
  let cursor: string | null = null;
  do {
    const page = (await (await stack.api(`/lists?limit=100${cursor ? `&cursor=${cursor}` : ""}`)).json()) as ListPage;
    lists.push(...page.data);
    cursor = page.pageInfo.nextCursor;
  } while (cursor);
  return lists;
}

describe("Lists", { timeout: 180_000 }, () => {
  it("pages through the shop's lists with next and previous, in the API's order", async () => {
    const everyList = await allListsFromApi();
    expect(everyList).toHaveLength(27);
    const expected = everyList.map((list) => `Customer ${list.owner.customerId}`);

    const { context, page, app } = await stack.openAdmin("/lists");
    await app.getByRole("table").waitFor({ timeout: 90_000 });
    expect(await owners(app)).toEqual(expected.slice(0, 25));
    const previous = app.getByRole("button", { name: "Previous page of lists" });
    const next = app.getByRole("button", { name: "Next page of lists" });
    expect(await previous.isDisabled()).toBe(true);

    await next.click();
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

  it("filters by customer ID as the API does, and refuses a bad ID inline", async () => {
    const { context, page, app } = await stack.openAdmin("/lists");
    await app.getByRole("table").waitFor({ timeout: 90_000 });
    const field = app.getByRole("textbox", { name: "Customer ID" });

    // Zero-padded digits name the same customer (the API's canonical form).
    await field.fill("0007001");
    await app.getByRole("button", { name: "Filter", exact: true }).click();
    await page.waitForURL(/customerId=0007001/, { timeout: 90_000 });
    await expect.poll(() => owners(app)).toEqual(["Customer 7001"]);
    expect(await app.getByRole("table").innerText()).toContain("Shared");

    // Spaces around a pasted ID are dropped, so the field shows and filters by the ID itself.
    await field.fill("  7001 ");
    await app.getByRole("button", { name: "Filter", exact: true }).click();
    await page.waitForURL(/customerId=\+\+7001\+/, { timeout: 90_000 });
    await expect.poll(() => owners(app)).toEqual(["Customer 7001"]);
    expect(await field.inputValue()).toBe("7001");

    for (const bad of ["7e3", "-1", "99999999999999999999"]) {
      await field.fill(bad);
      await app.getByRole("button", { name: "Filter", exact: true }).click();
      await expect
        .poll(() => app.getByText(/^Customer ID must be/).textContent())
        .toMatch(/Customer ID must be (a string of decimal digits|at most)/);
      expect(await app.getByRole("table").count()).toBe(0);
      expect(await field.getAttribute("aria-invalid")).toBe("true");
      // The API refuses the same value.
      expect((await stack.api(`/lists?customerId=${encodeURIComponent(bad)}`)).status).toBe(400);
    }

    // A customer without lists: an empty state, not an error.
    await field.fill("424242");
    await app.getByRole("button", { name: "Filter", exact: true }).click();
    await app.getByText("Customer 424242 has no lists").waitFor({ timeout: 90_000 });
    await app.getByRole("link", { name: "Clear" }).click();
    await expect.poll(() => owners(app).then((rows) => rows.length)).toBe(25);
    expectNoPageErrors(page);
    await context.close();
  });

  it("opens a list: owner, sharing, items, and each product in the platform's admin", async () => {
    const [shirt, coat] = stack.standInShop.products;
    const { context, page, app } = await stack.openAdmin("/lists?customerId=7001");
    await app.getByRole("link", { name: "Wishlist of Customer 7001" }).click();
    await app.getByRole("heading", { name: "Sharing" }).waitFor({ timeout: 90_000 });

    const listId = (await (await stack.api("/lists?customerId=7001")).json()) as ListPage;
    const list = (await (await stack.api(`/lists/${listId.data[0]!.id}`)).json()) as {
      share: { token: string };
      items: Array<{ productId: string; handle: string; titleSnapshot: string; addedAt: string }>;
    };
    expect(await app.getByText("Customer 7001", { exact: true }).isVisible()).toBe(true);
    expect(
      await app.getByText(`https://${stack.shop.domain}/pages/wishlist?share=${list.share.token}`).isVisible(),
    ).toBe(true);
    const rows = (await app.getByRole("table").getByRole("row").allInnerTexts())
      .slice(1)
      .map((row) => row.split("\t").map((cell) => cell.trim()));
    const utc = (iso: string) =>
      `${new Date(iso).toLocaleString("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" })} UTC`;
    expect(rows.map((row) => row.slice(1))).toEqual(
      list.items.map((item) => [item.handle, utc(item.addedAt), `Open product ${item.productId}`]),
    );
    // The shirt by its catalogue title; the coat, not yet looked up, by its id, with its shoppers' title marked.
    expect(rows.map((row) => row[0]!.split(/\s*\n\s*/))).toEqual([
      [`Product ${coat!.id}`, `Title sent by the shopper, not from the catalogue: ${coat!.title}`],
      [shirt!.title],
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
