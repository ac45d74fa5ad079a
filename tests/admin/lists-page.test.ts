/**
 * The admin's Lists page without a browser (review finding 10): owners named from the platform's Admin
 * API, with the ids when it does not answer; filters by customer (id, email, name) and product (id,
 * title); sorts by last update and item count, paged both ways with signed cursors; never a list of
 * another shop. The page's loader is `loadListsPage`; the platform is the stand-in's GraphQL engine (or a
 * failure) behind the fake Admin API; the database and Redis are real.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { demoShopData } from "../../stand-in/demo-data";
import { startFakeAdminApi, standInGraphql, throttledAnswer } from "../../scripts/lib/fake-admin-api";

// The platform stand-in, at the network boundary; set before app modules read the environment.
const platform = await startFakeAdminApi();
process.env.SHOPIFY_ADMIN_API_ORIGIN = platform.origin;
process.env.SHOPIFY_ADMIN_API_TIMEOUT_MS = "2000";
afterAll(() => platform.close());

const { database } = await import("~/data/database.server");
const { loadListsPage, loadListOwner, LISTS_PAGE_SIZE } = await import("~/admin/lists-page.server");
const { CONTACT_TTL_MS, findCustomerContacts, customerSearchQuery } =
  await import("~/services/owners/customer-directory.server");
const { toggleItem } = await import("~/services/wishlists/wishlists.server");
const { createList, renameList } = await import("~/services/wishlists/named-lists.server");
const { getListsOfOwner, getListWithItems } = await import("~/services/wishlists/browse.server");
const { updateShopSettings } = await import("~/services/shops/shops.server");
const { createShop } = await import("../factories");

type Page = Awaited<ReturnType<typeof loadListsPage>>;
type Owner = import("~/services/owners/owner").Owner;

const shop = await createShop();
const otherShop = await createShop();
// Named lists (the last describe) are made in shops of their own, so the counts and orders above stay.
const named = await createShop();
const elsewhere = await createShop();
const standIn = demoShopData({ domain: shop.domain, accessToken: "shpat_lists" });
// Customers 9000-9009 are known to the shop; 9010-9029 are not (deleted, or erased): shown by id.
for (let n = 0; n < 10; n++) {
  standIn.customers.push({
    id: String(9000 + n),
    email: `buyer${n}@example.com`,
    firstName: `Buyer`,
    lastName: `N${n}`,
  });
}
const products = standIn.products;

async function connect(domain: string, accessToken = "shpat_lists") {
  await database()
    .insertInto("Session")
    .values({ id: `offline_${domain}`, shop: domain, state: "", isOnline: false, accessToken })
    .execute();
}

/** Saves `count` products (from `from` in the catalogue) to the customer's (or a guest's) list, at `at`. */
async function fill(
  shopId: string,
  owner: { customerId: string } | { anonymousId: string },
  count: number,
  at: Date,
  from = 0,
) {
  for (let index = 0; index < count; index++) {
    const product = products[(from + index) % products.length]!;
    await toggleItem({
      shopId,
      owner: "customerId" in owner ? { kind: "customer", ...owner } : { kind: "anonymous", ...owner },
      item: { productId: product.id, handle: product.handle, title: product.title },
      at,
    });
  }
}

const base = Date.UTC(2026, 0, 1);
const minute = (n: number) => new Date(base + n * 60_000);

beforeAll(async () => {
  await connect(shop.domain);
  await connect(otherShop.domain, "shpat_other");
  // Ada: shirt, coat, hat (3); Grace: the hat (1); Alan: 2; a guest: 1.
  await fill(shop.id, { customerId: "7001" }, 3, minute(10));
  await fill(shop.id, { customerId: "7002" }, 1, minute(20), 2);
  await fill(shop.id, { customerId: "7003" }, 2, minute(5), 5);
  await fill(shop.id, { anonymousId: "8b0c6f5e-2f61-4a55-9d3c-6a1f0e2b7c11" }, 1, minute(1), 7);
  // 30 more, so that every order spans pages; some share an update time and many an item count.
  for (let n = 0; n < 30; n++) {
    await fill(shop.id, { customerId: String(9000 + n) }, 1 + (n % 4), minute(30 + Math.floor(n / 3)), n);
  }
  // Another shop: the same customer ids and products, newer and fuller than any of the shop's lists.
  for (const customerId of ["7001", "7002", "9000"]) {
    await fill(otherShop.id, { customerId }, 6, minute(1_000));
  }
});

beforeEach(() => {
  platform.calls.length = 0;
  platform.answer(standInGraphql(standIn));
});

const load = (query: Record<string, string> = {}, forShop = shop) =>
  loadListsPage({ shopId: forShop.id, shopDomain: forShop.domain, search: new URLSearchParams(query) });

async function listIdsOf(shopId: string) {
  const rows = await database()
    .selectFrom("List")
    .select("id")
    .where("shopId", "=", shopId)
    .where("retiredAt", "is", null)
    .execute();
  return new Set(rows.map((row) => row.id));
}

/** Every page from the first, following `nextCursor`; then back from the last, following `previousCursor`. */
async function walk(query: Record<string, string>) {
  const forwards: NonNullable<Page["page"]>[] = [];
  let cursor: string | null = null;
  do {
    const { page, cursorError } = await load({ ...query, ...(cursor ? { cursor } : {}) });
    expect(cursorError).toBe(false);
    forwards.push(page!);
    cursor = page!.nextCursor;
  } while (cursor);
  const backwards: NonNullable<Page["page"]>[] = [forwards.at(-1)!];
  cursor = forwards.at(-1)!.previousCursor;
  while (cursor) {
    const { page } = await load({ ...query, cursor });
    backwards.unshift(page!);
    cursor = page!.previousCursor;
  }
  return { forwards, backwards };
}

const ids = (page: Page) => page.page!.lists.map((list) => list.id);
const ownersOf = (page: Page) => page.page!.lists.map((list) => list.owner.customerId);

describe("owners' names and emails (finding 10)", () => {
  it("names each owner as the shop knows them, from the Admin API, and a customer it does not know by id", async () => {
    const page = await load({ customer: "7001" });
    expect(page.page!.lists).toHaveLength(1);
    expect(page.page!.lists[0]!.owner).toEqual({
      type: "customer",
      customerId: "7001",
      contact: { name: "Ada Lovelace", email: "ada@example.com" },
      listCount: 1,
    });
    expect(page.contactsUnavailable).toBe(false);

    const everyone = await load({ sort: "updated-asc" });
    const byCustomer = new Map(everyone.page!.lists.map((list) => [list.owner.customerId, list.owner]));
    expect(byCustomer.get("7002")!.contact).toEqual({ name: "Grace Hopper", email: "grace@example.com" });
    expect(byCustomer.get("9003")!.contact).toEqual({ name: "Buyer N3", email: "buyer3@example.com" });
    // Unknown to the platform (a null node): shown by id, and not a failure.
    expect(byCustomer.get("9015")!.contact).toBeNull();
    expect(byCustomer.get(null)).toEqual({ type: "anonymous", customerId: null, contact: null, listCount: 1 });
    // One query for the page's customers, asking for nothing but names and emails, by customer GID.
    const lookups = platform.calls.filter((call) => call.query.includes("WishlistListOwners"));
    expect(lookups.length).toBeGreaterThan(0);
    expect(lookups[0]!.accessToken).toBe("shpat_lists");
    expect(lookups[0]!.variables.ids).toEqual(expect.arrayContaining(["gid://shopify/Customer/7001"]));
  });

  it("names the owner on the list's own page", async () => {
    expect(await loadListOwner({ shopId: shop.id, shopDomain: shop.domain, customerId: "7003" })).toEqual({
      contact: { name: "Alan Turing", email: "alan@example.com" },
      contactsUnavailable: false,
    });
    expect(await loadListOwner({ shopId: shop.id, shopDomain: shop.domain, customerId: null })).toEqual({
      contact: null,
      contactsUnavailable: false,
    });
  });

  it("asks the platform again only after CONTACT_TTL_MS, and keeps each shop's answers apart", async () => {
    const a = await createShop();
    const b = await createShop();
    await connect(a.domain);
    await connect(b.domain);
    const now = Date.now();
    const ask = (forShop: { id: string; domain: string }, at: number) =>
      findCustomerContacts({ shopId: forShop.id, shopDomain: forShop.domain, customerIds: ["7001", "7002"], now: at });
    expect((await ask(a, now)).contacts.get("7001")).toEqual({ name: "Ada Lovelace", email: "ada@example.com" });
    await ask(a, now + CONTACT_TTL_MS - 1);
    expect(platform.calls).toHaveLength(1);
    // Another shop's customer 7001 is asked of that shop's platform, not read from the first shop's answer.
    platform.answer(() => ({ status: 200, body: { data: { nodes: [null, null] } } }));
    expect((await ask(b, now)).contacts.size).toBe(0);
    expect(platform.calls).toHaveLength(2);
    // Past the TTL the name is asked for again: a name changed or erased in the shop is not shown longer.
    expect((await ask(a, now + CONTACT_TTL_MS + 1)).contacts.size).toBe(0);
    expect(platform.calls).toHaveLength(3);
  });

  it.each([
    ["a 503", () => ({ status: 503, body: { errors: "unavailable" } })],
    ["throttling", () => throttledAnswer({ cost: 10, maximum: 1000, restoreRate: 50 })],
    ["a refused token (uninstalled)", () => ({ status: 401, body: { errors: "Invalid API key or access token" } })],
    ["a dropped connection", () => "drop" as const],
    ["no answer within the timeout", () => "hang" as const],
    ["errors without data", () => ({ status: 200, body: { errors: [{ message: "Access denied for customers" }] } })],
  ])("shows the lists with owners by id when the Admin API fails with %s", async (_, answer) => {
    // A shop of its own, so no name is in memory from an earlier test.
    const failing = await createShop();
    await connect(failing.domain);
    await fill(failing.id, { customerId: "7001" }, 1, minute(3));
    platform.answer(answer);
    const page = await load({}, failing);
    expect(page.contactsUnavailable).toBe(true);
    expect(page.page!.lists.map((list) => list.owner)).toEqual([
      { type: "customer", customerId: "7001", contact: null, listCount: 1 },
    ]);
    const owner = await loadListOwner({ shopId: failing.id, shopDomain: failing.domain, customerId: "7001" });
    expect(owner).toEqual({ contact: null, contactsUnavailable: true });
  });

  it("shows owners by id for a shop with no access token (never connected, or uninstalled)", async () => {
    const unconnected = await createShop();
    await fill(unconnected.id, { customerId: "7002" }, 1, minute(3));
    const page = await load({}, unconnected);
    expect(page.contactsUnavailable).toBe(true);
    expect(page.page!.lists[0]!.owner.contact).toBeNull();
    expect(platform.calls).toHaveLength(0);
  });
});

describe("filters (finding 10)", () => {
  it.each([
    ["an id, zero-padded", "0007001", ["7001"]],
    ["an id with spaces around it", "  7002 ", ["7002"]],
    ["an email", "ada@example.com", ["7001"]],
    ["an email in capitals", "GRACE@example.com", ["7002"]],
    ["a first name", "grace", ["7002"]],
    ["a full name", "Alan Turing", ["7003"]],
    ["a name several customers share", "buyer", Array.from({ length: 10 }, (_, n) => String(9000 + n))],
    ["a name no customer has", "nobody", []],
    ["an id no list has", "424242", []],
  ])("filters by customer: %s", async (_, customer, expected) => {
    const page = await load({ customer });
    expect(page.fieldErrors).toEqual({});
    expect(ownersOf(page).sort()).toEqual([...expected].sort());
    // Only this shop's lists, although the other shop has lists of 7001, 7002 and 9000.
    const mine = await listIdsOf(shop.id);
    expect(ids(page).every((id) => mine.has(id))).toBe(true);
  });

  it("asks the platform for names and emails with its search syntax, and never for an id", async () => {
    await load({ customer: "ada@example.com" });
    await load({ customer: 'Ada "Lovelace' });
    await load({ customer: "7001" });
    const searches = platform.calls.filter((call) => call.query.includes("WishlistListOwnerSearch"));
    expect(searches.map((call) => call.variables.query)).toEqual(['email:"ada@example.com"', '"Ada" "\\"Lovelace"']);
    expect(customerSearchQuery("  a  b ")).toBe('"a" "b"');
  });

  it("says when more customers match than the page filters by (the platform's first 250)", async () => {
    const search = standInGraphql(standIn);
    platform.answer((call) =>
      call.query.includes("WishlistListOwnerSearch")
        ? {
            status: 200,
            body: {
              data: {
                customers: {
                  nodes: Array.from({ length: 250 }, (_, n) => ({ id: `gid://shopify/Customer/${9000 + n}` })),
                },
              },
            },
          }
        : search(call),
    );
    const page = await load({ customer: "a" });
    expect(page.searchTruncated).toBe(true);
    // Of those 250, the shop has lists of 9000-9029.
    expect(ownersOf(page).length).toBe(LISTS_PAGE_SIZE);
    expect((await load({ customer: "grace" })).searchTruncated).toBe(true);
    platform.answer(search);
    expect((await load({ customer: "grace" })).searchTruncated).toBe(false);
  });

  it("says the customer search could not run when the platform does not answer it, and shows no lists", async () => {
    platform.answer(() => ({ status: 502, body: {} }));
    const page = await load({ customer: "ada@example.com" });
    expect(page).toMatchObject({ searchUnavailable: true, page: null });
    // An id needs no search: the page still filters by it, the owner shown by id.
    const byId = await load({ customer: "7001" });
    expect(ownersOf(byId)).toEqual(["7001"]);
  });

  it.each([
    ["its id", () => products[2]!.id],
    ["part of its title, any case", () => "mEaDoW sUn"],
  ])("filters by product: %s", async (_, product) => {
    const page = await load({ product: product(), sort: "items-asc" });
    const items = await database()
      .selectFrom("Item")
      .innerJoin("List", "List.id", "Item.listId")
      .select("List.customerId")
      .where("Item.shopId", "=", shop.id)
      .where("Item.productId", "=", products[2]!.id)
      .where("List.retiredAt", "is", null)
      .execute();
    const holders = items.map((row) => row.customerId).sort();
    expect(ownersOf(page).sort()).toEqual(holders);
    // Ada and Grace saved the hat, and so did some of the 30 others.
    expect(holders).toEqual(expect.arrayContaining(["7001", "7002"]));
    expect(holders.length).toBeGreaterThan(3);
    const mine = await listIdsOf(shop.id);
    expect(ids(page).every((id) => mine.has(id))).toBe(true);
  });

  it("takes a product filter's % and _ as themselves, and combines it with a customer filter", async () => {
    expect((await load({ product: "%" })).page!.lists).toEqual([]);
    expect((await load({ product: "_" })).page!.lists).toEqual([]);
    const both = await load({ customer: "ada@example.com", product: "harbor" });
    expect(ownersOf(both)).toEqual(["7001"]);
    expect((await load({ customer: "grace", product: "harbor" })).page!.lists).toEqual([]);
  });

  it("refuses an id past 64 bits and an overlong search inline, and shows no lists", async () => {
    expect(await load({ customer: "99999999999999999999" })).toMatchObject({
      fieldErrors: { customer: expect.stringMatching(/^Customer ID must be at most/) },
      page: null,
    });
    expect(await load({ customer: "x".repeat(201) })).toMatchObject({
      fieldErrors: { customer: "Customer search must be at most 200 characters" },
      page: null,
    });
    expect(platform.calls).toHaveLength(0);
    expect(await load({ product: "x".repeat(201) })).toMatchObject({
      fieldErrors: { product: "Product must be at most 200 characters" },
      page: null,
    });
  });
});

describe("sorting and pages (finding 10)", () => {
  /** The shop's lists as the database holds them, in the order `sort` names. */
  async function expectedOrder(sort: string) {
    const rows = await database()
      .selectFrom("List")
      .select(["id", "updatedAt"])
      .select((eb) =>
        eb
          .selectFrom("Item")
          .select((inner) => inner.fn.countAll<number>().as("n"))
          .whereRef("Item.listId", "=", "List.id")
          .as("n"),
      )
      .where("shopId", "=", shop.id)
      .where("retiredAt", "is", null)
      .execute();
    const [key, direction] = sort.split("-");
    const value = (row: (typeof rows)[number]) => (key === "items" ? Number(row.n) : row.updatedAt.getTime());
    const sign = direction === "asc" ? 1 : -1;
    return rows
      .sort((a, b) => sign * (value(a) - value(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
      .map((row) => ({ id: row.id, count: Number(row.n), updatedAt: row.updatedAt.toISOString() }));
  }

  it.each(["updated-desc", "updated-asc", "items-desc", "items-asc"])(
    "sorts by %s across pages, forwards and back, with this shop's lists only",
    async (sort) => {
      const expected = await expectedOrder(sort);
      expect(expected).toHaveLength(34);
      const { forwards, backwards } = await walk({ sort });
      expect(forwards.map((page) => page.lists.length)).toEqual([LISTS_PAGE_SIZE, 34 - LISTS_PAGE_SIZE]);
      const shown = forwards.flatMap((page) => page.lists);
      expect(shown.map((list) => ({ id: list.id, count: list.count, updatedAt: list.updatedAt }))).toEqual(expected);
      // Going back shows the same pages as going forwards.
      expect(backwards.map((page) => page.lists.map((list) => list.id))).toEqual(
        forwards.map((page) => page.lists.map((list) => list.id)),
      );
      expect(forwards[0]!.previousCursor).toBeNull();
      expect(backwards[0]!.previousCursor).toBeNull();
    },
  );

  it("sorts by newest update unless told otherwise", async () => {
    const expected = await expectedOrder("updated-desc");
    expect(ids(await load())).toEqual(expected.slice(0, LISTS_PAGE_SIZE).map((row) => row.id));
    expect(ids(await load({ sort: "bogus" }))).toEqual(expected.slice(0, LISTS_PAGE_SIZE).map((row) => row.id));
    // Names every object inherits are not sorts either (an `in` check took them, and the query broke).
    for (const sort of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      expect(ids(await load({ sort })), sort).toEqual(expected.slice(0, LISTS_PAGE_SIZE).map((row) => row.id));
    }
  });

  it("pages a filtered, sorted listing, and refuses a cursor of another order, filter or shop", async () => {
    const { forwards } = await walk({ customer: "buyer", sort: "items-desc" });
    expect(forwards.flatMap((page) => page.lists.map((list) => list.owner.customerId)).sort()).toEqual(
      Array.from({ length: 10 }, (_, n) => String(9000 + n)),
    );
    const { page } = await load({ sort: "items-desc" });
    const cursor = page!.nextCursor!;
    expect((await load({ sort: "items-desc", cursor })).cursorError).toBe(false);
    expect((await load({ sort: "updated-desc", cursor })).cursorError).toBe(true);
    expect((await load({ sort: "items-desc", product: "coat", cursor })).cursorError).toBe(true);
    expect((await load({ sort: "items-desc", cursor }, otherShop)).cursorError).toBe(true);
    expect((await load({ sort: "items-desc", cursor: `${cursor}x` })).cursorError).toBe(true);
  });

  it("never shows another shop's lists, whatever the order", async () => {
    const theirs = await listIdsOf(otherShop.id);
    for (const sort of ["updated-desc", "items-desc"]) {
      const { forwards } = await walk({ sort });
      expect(forwards.flatMap((page) => page.lists).filter((list) => theirs.has(list.id))).toEqual([]);
    }
    // And the other shop sees its own three lists only.
    const theirPage = await load({}, otherShop);
    expect(new Set(ids(theirPage))).toEqual(theirs);
    expect(theirs.size).toBe(3);
  });
});

describe("named lists (issue 28, item 8)", () => {
  const guest = { kind: "anonymous" as const, anonymousId: "3f0c6f5e-2f61-4a55-9d3c-6a1f0e2b7c22" };
  const ada = { kind: "customer" as const, customerId: "7001" };
  const grace = { kind: "customer" as const, customerId: "7002" };
  const save = (shopId: string, owner: Owner, index: number, listId?: string) => {
    const product = products[index]!;
    return toggleItem({
      shopId,
      owner,
      listId,
      item: { productId: product.id, handle: product.handle, title: product.title },
      at: minute(50 + index),
    });
  };
  let gifts: { id: string };
  let room: { id: string };
  let guestList: { id: string };

  beforeAll(async () => {
    await connect(named.domain);
    await connect(elsewhere.domain, "shpat_elsewhere");
    await updateShopSettings({ shopId: named.id, patch: { multipleLists: true } });
    await updateShopSettings({ shopId: elsewhere.id, patch: { multipleLists: true } });
    // Ada: her default list (1 item), "Gifts for Sam" (2), "Living room" (empty); Grace: her default list
    // only, renamed (still her default).
    await save(named.id, ada, 0);
    gifts = await createList({ shopId: named.id, owner: ada, name: "Gifts for Sam" });
    await save(named.id, ada, 1, gifts.id);
    await save(named.id, ada, 2, gifts.id);
    room = await createList({ shopId: named.id, owner: ada, name: "Living room" });
    await save(named.id, grace, 3);
    const graceList = await database()
      .selectFrom("List")
      .select("id")
      .where("shopId", "=", named.id)
      .where("customerId", "=", "7002")
      .executeTakeFirstOrThrow();
    await renameList({ shopId: named.id, owner: grace, listId: graceList.id, name: "Grace's picks" });
    // A guest with a default list and a named one; the guest's own "Gifts" is theirs, not Ada's.
    await save(named.id, guest, 4);
    guestList = await createList({ shopId: named.id, owner: guest, name: "GIFTS ideas" });
    // Ada in another shop: named lists that must never show or count here.
    await createList({ shopId: elsewhere.id, owner: ada, name: "Gifts elsewhere" });
    await createList({ shopId: elsewhere.id, owner: ada, name: "Living room" });
  });

  const loadNamed = (query: Record<string, string> = {}) => load(query, named);

  it("shows every list of a customer, which is their default one, and how many lists each owner keeps", async () => {
    const page = await loadNamed({ customer: "7001", sort: "items-desc" });
    expect(page.page!.lists.map((list) => ({ name: list.name, default: list.default, count: list.count }))).toEqual([
      { name: "Gifts for Sam", default: false, count: 2 },
      { name: "Wishlist", default: true, count: 1 },
      { name: "Living room", default: false, count: 0 },
    ]);
    // Three lists in this shop (the other shop's two are not counted), each row says so.
    expect(page.page!.lists.map((list) => list.owner.listCount)).toEqual([3, 3, 3]);

    const everyone = await loadNamed();
    const countOf = (customerId: string | null) =>
      everyone.page!.lists.filter((list) => list.owner.customerId === customerId).map((list) => list.owner.listCount);
    expect(countOf("7002")).toEqual([1]);
    expect(countOf(null)).toEqual([2, 2]);
    // The guest's anonymous id is never part of what the page shows.
    expect(JSON.stringify(everyone)).not.toContain(guest.anonymousId);
  });

  it("keeps a renamed default list marked as the default", async () => {
    const page = await loadNamed({ customer: "7002" });
    expect(page.page!.lists.map((list) => [list.name, list.default])).toEqual([["Grace's picks", true]]);
  });

  it.each([
    ["part of a name, in another case", "gifts", ["Gifts for Sam", "GIFTS ideas"]],
    ["a name with spaces around it", "  living ROOM ", ["Living room"]],
    // Grace renamed hers: Ada's and the guest's default lists.
    ["the default lists' name", "wishlist", ["Wishlist", "Wishlist"]],
    ["a LIKE wildcard, taken as itself", "%", []],
    ["an underscore, taken as itself", "_", []],
    ["a name no list has", "kitchen", []],
  ])("filters by list name: %s", async (_, name, expected) => {
    const page = await loadNamed({ name, sort: "updated-asc" });
    expect(page.fieldErrors).toEqual({});
    expect(page.page!.lists.map((list) => list.name).sort()).toEqual([...expected].sort());
    expect(page.filters.name).toBe(name.trim());
  });

  it("combines the list name with the customer and product filters", async () => {
    expect((await loadNamed({ customer: "7001", name: "gifts" })).page!.lists.map((list) => list.id)).toEqual([
      gifts.id,
    ]);
    expect((await loadNamed({ product: products[1]!.id, name: "gifts" })).page!.lists.map((list) => list.id)).toEqual([
      gifts.id,
    ]);
    expect((await loadNamed({ product: products[1]!.id, name: "room" })).page!.lists).toEqual([]);
  });

  it("pages a listing filtered by list name both ways, and refuses a cursor of another list name", async () => {
    // The first shop's 34 lists are all default lists named Wishlist.
    const { forwards, backwards } = await walk({ name: "WISH", sort: "items-desc" });
    expect(forwards.map((page) => page.lists.length)).toEqual([LISTS_PAGE_SIZE, 34 - LISTS_PAGE_SIZE]);
    expect(new Set(forwards.flatMap((page) => page.lists.map((list) => list.id)))).toEqual(await listIdsOf(shop.id));
    expect(backwards.map((page) => page.lists.map((list) => list.id))).toEqual(
      forwards.map((page) => page.lists.map((list) => list.id)),
    );
    // A cursor is signed for its filters: taken with another list name, or none, it is refused.
    const cursor = forwards[0]!.nextCursor!;
    expect((await load({ name: "WISH", sort: "items-desc", cursor })).cursorError).toBe(false);
    expect((await load({ name: "list", sort: "items-desc", cursor })).cursorError).toBe(true);
    expect((await load({ sort: "items-desc", cursor })).cursorError).toBe(true);
  });

  it("refuses an overlong list name filter inline, and shows no lists", async () => {
    expect(await loadNamed({ name: "x".repeat(201) })).toMatchObject({
      fieldErrors: { name: "List name must be at most 200 characters" },
      page: null,
    });
  });

  it("never finds another shop's list by its name", async () => {
    expect((await loadNamed({ name: "elsewhere" })).page!.lists).toEqual([]);
    expect((await load({ name: "elsewhere" }, elsewhere)).page!.lists.map((list) => list.name)).toEqual([
      "Gifts elsewhere",
    ]);
  });

  it("gives a list's page every list of its owner, with counts, in this shop only", async () => {
    const list = await getListWithItems({ shopId: named.id, listId: room.id });
    const lists = await getListsOfOwner({ shopId: named.id, list });
    // The default first, then the others oldest first; this one among them.
    expect(lists.map((row) => ({ name: row.name, default: row.isDefault === true, count: row.count }))).toEqual([
      { name: "Wishlist", default: true, count: 1 },
      { name: "Gifts for Sam", default: false, count: 2 },
      { name: "Living room", default: false, count: 0 },
    ]);
    expect(lists.every((row) => row.shopId === named.id && row.customerId === "7001")).toBe(true);

    // A guest's lists, by their anonymous id: the guest's own, not Ada's "Gifts".
    const guests = await getListsOfOwner({
      shopId: named.id,
      list: await getListWithItems({ shopId: named.id, listId: guestList.id }),
    });
    expect(guests.map((row) => [row.name, row.count])).toEqual([
      ["Wishlist", 1],
      ["GIFTS ideas", 0],
    ]);

    // Ada's lists in the other shop: theirs only (the same customer id is another shop's shopper there).
    const [theirs] = (await load({ customer: "7001", name: "living" }, elsewhere)).page!.lists;
    const their = await getListsOfOwner({
      shopId: elsewhere.id,
      list: await getListWithItems({ shopId: elsewhere.id, listId: theirs!.id }),
    });
    expect(their.map((row) => row.name)).toEqual(["Wishlist", "Gifts elsewhere", "Living room"]);
    expect(their.every((row) => row.shopId === elsewhere.id)).toBe(true);
    // And a list id of the other shop is not found in this one.
    await expect(getListWithItems({ shopId: named.id, listId: theirs!.id })).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
