import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { database, engine } from "~/data/database.server";
import { createShopWithKey } from "../../factories";
import { signedProxyPath } from "../../support/openapi-client";
import { createTestApp } from "../../support/http";
import { countEvents, itemsOf, listsOf } from "../../support/wishlist-rows";

/**
 * The outbox is transactional (docs/decisions/010-storefront-writes.md): a change and its event commit
 * together or not at all. The database itself refuses the event (a trigger the test adds to the Event
 * table, on both engines), so each change must be undone with it. A service that wrote its event after
 * committing the change would leave the change behind, and these tests fail (issue 25, finding 23).
 */
const app = await createTestApp();

async function refuseEventInserts() {
  if (engine() === "sqlite") {
    await sql`CREATE TRIGGER "refuse_event_insert" BEFORE INSERT ON "Event"
      BEGIN SELECT RAISE(ABORT, 'the test refuses every event'); END`.execute(database());
  } else {
    await sql`CREATE OR REPLACE FUNCTION "refuse_event_insert"() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'the test refuses every event'; END $$`.execute(database());
    await sql`CREATE TRIGGER "refuse_event_insert" BEFORE INSERT ON "Event"
      FOR EACH ROW EXECUTE FUNCTION "refuse_event_insert"()`.execute(database());
  }
}

afterEach(async () => {
  if (engine() === "sqlite") await sql`DROP TRIGGER IF EXISTS "refuse_event_insert"`.execute(database());
  else await sql`DROP TRIGGER IF EXISTS "refuse_event_insert" ON "Event"`.execute(database());
});

async function shopper() {
  const { shop } = await createShopWithKey();
  const aid = randomUUID();
  const call = async (method: string, path: string, customer: string | null, body: unknown): Promise<Response> =>
    app.request(
      `http://localhost:3000${signedProxyPath(`/proxy/v1${path}`, {
        shop: shop.domain,
        logged_in_customer_id: customer ?? "",
      })}`,
      { method, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) },
    );
  const product = (productId: string) => ({ productId, handle: `p${productId}`, anonymousId: aid });
  return { shop, aid, call, product };
}

/** The stored state a refused change must leave as it was: every item and list row, and the events. */
async function snapshot(shopId: string) {
  return { items: await itemsOf(shopId), lists: await listsOf(shopId), events: await countEvents(shopId) };
}

async function expectRefusedAndUnchanged(shopId: string, change: () => Promise<Response>) {
  const before = await snapshot(shopId);
  await refuseEventInserts();
  const response = await change();
  expect(response.status).toBeGreaterThanOrEqual(500);
  expect(await snapshot(shopId)).toEqual(before);
}

describe("a change whose event the database refuses is not made (both engines)", () => {
  it("toggle on: the item is not saved", async () => {
    const { shop, call, product } = await shopper();
    await expectRefusedAndUnchanged(shop.id, () => call("POST", "/storefront/wishlist/toggle", null, product("1")));
  });

  it("toggle off: the item stays saved", async () => {
    const { shop, call, product } = await shopper();
    expect((await call("POST", "/storefront/wishlist/toggle", null, product("1"))).status).toBe(200);
    expect(await itemsOf(shop.id)).toHaveLength(1);
    await expectRefusedAndUnchanged(shop.id, () => call("POST", "/storefront/wishlist/toggle", null, product("1")));
  });

  it("add: the item is not saved", async () => {
    const { shop, call, product } = await shopper();
    await expectRefusedAndUnchanged(shop.id, () => call("POST", "/storefront/wishlist/items", null, product("2")));
  });

  it("remove: the item stays saved", async () => {
    const { shop, call, product } = await shopper();
    expect((await call("POST", "/storefront/wishlist/items", null, product("3"))).status).toBe(201);
    await expectRefusedAndUnchanged(shop.id, () =>
      call("DELETE", "/storefront/wishlist/items", null, { productId: "3", anonymousId: product("3").anonymousId }),
    );
  });

  it("share: the list gets no share token", async () => {
    const { shop, aid, call, product } = await shopper();
    expect((await call("POST", "/storefront/wishlist/items", null, product("4"))).status).toBe(201);
    await expectRefusedAndUnchanged(shop.id, () =>
      call("POST", "/storefront/wishlist/share", null, { anonymousId: aid }),
    );
  });

  it("merge at login: the guest's list and items stay where they were", async () => {
    const { shop, aid, call, product } = await shopper();
    expect((await call("POST", "/storefront/wishlist/items", null, product("5"))).status).toBe(201);
    expect((await call("POST", "/storefront/wishlist/items", null, product("6"))).status).toBe(201);
    expect((await call("POST", "/storefront/wishlist/items", "700", { productId: "6", handle: "p6" })).status).toBe(
      201,
    );
    await expectRefusedAndUnchanged(shop.id, () => call("POST", "/storefront/identify", "700", { anonymousId: aid }));
  });
});
