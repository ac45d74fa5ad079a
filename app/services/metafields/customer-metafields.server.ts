/**
 * The customer metafield sync (`metafieldSyncEnabled`; docs/decisions/023-customer-metafield-sync.md): the
 * worker keeps an app-owned customer metafield equal to the customer's saved products, most recent first,
 * so themes (`customer.metafields`), Flow and email tools can read them.
 *  - A change marks the customer as owing a write (`CustomerMetafieldSync`), in the transaction that
 *    relays the change's event (or writes the import's rows); turning the setting on asks the job for the
 *    backfill (`Shop.metafieldBackfillAt`), which marks every customer with a list, a page at a time.
 *  - One job per shop (`metafields.sync`, delayed by METAFIELD_SYNC_DELAY_MS so a burst of saves costs one
 *    write per customer) writes up to 25 customers per `metafieldsSet` call, paced by the platform's
 *    cost-based rate limit; a sweep queues the shops whose job Redis lost.
 *  - Turning the setting off forgets what is owed: nothing is written while it is off.
 */
import { database, transaction, type Queryable } from "~/data/database.server";
import {
  customersWithLists,
  deleteShopMetafieldSyncs,
  finishMetafieldBackfill,
  findChangedCustomers,
  findShopsOwingMetafields,
  markCustomersChanged,
  markCustomerSynced,
  savedProductIds,
  type MetafieldSyncRow,
} from "~/data/metafield-sync-rows.server";
import { findShopById } from "~/data/shop-rows.server";
import { logger } from "~/logger.server";
import { createAdminCaller, present, type AdminCaller } from "~/services/platform/admin-api.server";
import type { AdminData } from "~/services/platform/admin-operations";
import { readShopSettings } from "~/services/shops/settings";

/** The app-reserved namespace (`$app:` is our app's own on the platform) and key of the metafield. */
export const METAFIELD_NAMESPACE = "$app:wishlist";
export const METAFIELD_KEY = "saved_products";
export const METAFIELD_TYPE = "list.product_reference";
/** The platform keeps at most 128 values in a list metafield: the most recently saved products. */
export const METAFIELD_MAX_PRODUCTS = 128;
/** The platform's `metafieldsSet` takes at most 25 metafields per call. */
export const METAFIELDS_PER_CALL = 25;
/** Customers the backfill marks per page: each page is its own short statement, never one for the shop. */
const BACKFILL_PAGE = 1_000;

const CREATE_DEFINITION = `#graphql
  mutation WishlistMetafieldDefinition($definition: MetafieldDefinitionInput!) {
    metafieldDefinitionCreate(definition: $definition) {
      createdDefinition { id }
      userErrors { field message code }
    }
  }`;

const SET_METAFIELDS = `#graphql
  mutation WishlistMetafieldsSet($metafields: [MetafieldsSetInput!]!) {
    metafieldsSet(metafields: $metafields) {
      metafields { id }
      userErrors { field message code elementIndex }
    }
  }`;

const DELETE_METAFIELDS = `#graphql
  mutation WishlistMetafieldsDelete($metafields: [MetafieldIdentifierInput!]!) {
    metafieldsDelete(metafields: $metafields) {
      deletedMetafields { key }
      userErrors { field message }
    }
  }`;

/** What the platform says of a metafield it did not write. */
type SetUserError = NonNullable<AdminData<typeof SET_METAFIELDS>["metafieldsSet"]>["userErrors"][number];

const customerGid = (customerId: string) => `gid://shopify/Customer/${customerId}`;
const productGid = (productId: string) => `gid://shopify/Product/${productId}`;

/** Whether the shop syncs metafields (read in the caller's transaction). */
async function syncEnabled(q: Queryable, shopId: string): Promise<boolean> {
  const shop = await findShopById(q, shopId);
  return shop !== undefined && shop.uninstalledAt === null && readShopSettings(shop.settings).metafieldSyncEnabled;
}

/**
 * Marks the customers whose saved products changed, in the caller's transaction, for the shops that sync;
 * returns the shops that now owe writes (to queue their job once the transaction commits).
 */
export async function noteCustomerChanges(
  tx: Queryable,
  changes: ReadonlyMap<string, Iterable<string>>,
  at = new Date(),
): Promise<string[]> {
  const owing: string[] = [];
  for (const [shopId, customerIds] of changes) {
    const ids = [...new Set(customerIds)];
    if (ids.length === 0 || !(await syncEnabled(tx, shopId))) continue;
    await markCustomersChanged(tx, shopId, ids, at);
    owing.push(shopId);
  }
  return owing;
}

/** Shops whose definition this process has created or found (asked again after a restart). */
const definitionsEnsured = new Set<string>();

/**
 * Creates the metafield's definition (the platform answers TAKEN when it exists). A refusal (the shop at
 * its limit of definitions, say) is logged: values are written without a definition too, only the
 * admin's and the storefront's access to them differ.
 */
async function ensureDefinition(client: AdminCaller, shopId: string): Promise<void> {
  if (definitionsEnsured.has(shopId)) return;
  const answer = await client.ask("metafield definition", CREATE_DEFINITION, {
    definition: {
      name: "Wishlist",
      description: "Products the customer saved to their wishlist, most recent first (kept by the wishlist app).",
      namespace: METAFIELD_NAMESPACE,
      key: METAFIELD_KEY,
      type: METAFIELD_TYPE,
      ownerType: "CUSTOMER",
      access: { admin: "MERCHANT_READ", storefront: "PUBLIC_READ", customerAccount: "READ" },
    },
  });
  const { userErrors } = present(answer.metafieldDefinitionCreate, "the metafield definition's result");
  const errors = userErrors.filter((error) => error.code !== "TAKEN");
  if (errors.length > 0) {
    logger.warn({ shopId, reasons: errors.map((e) => e.message) }, "the platform refused the metafield definition");
  }
  definitionsEnsured.add(shopId);
}

/** The position a user error names (`elementIndex`, or the index in `field`), if any. */
function positionOf(error: SetUserError): number | null {
  if (typeof error.elementIndex === "number") return error.elementIndex;
  const index = Number(error.field?.[1]);
  return error.field?.[0] === "metafields" && Number.isInteger(index) ? index : null;
}

interface Owed {
  row: MetafieldSyncRow;
  productIds: string[];
}

/**
 * Writes the values of customers with saved products. `metafieldsSet` is atomic: when the platform refuses
 * some (a customer deleted in the shop), those are recorded with the reason and the others sent again.
 */
async function writeValues(client: AdminCaller, owed: Owed[]): Promise<Map<string, string | null>> {
  const outcome = new Map<string, string | null>();
  let pending = owed;
  while (pending.length > 0) {
    const answer = await client.ask("metafield write", SET_METAFIELDS, {
      metafields: pending.map(({ row, productIds }) => ({
        ownerId: customerGid(row.customerId),
        namespace: METAFIELD_NAMESPACE,
        key: METAFIELD_KEY,
        type: METAFIELD_TYPE,
        value: JSON.stringify(productIds.map(productGid)),
      })),
    });
    const errors = present(answer.metafieldsSet, "the metafield write's result").userErrors;
    if (errors.length === 0) {
      for (const { row } of pending) outcome.set(row.customerId, null);
      return outcome;
    }
    const refused = new Map<number, string>();
    for (const error of errors) {
      const position = positionOf(error);
      if (position !== null && position < pending.length) refused.set(position, error.message);
    }
    if (refused.size === 0) {
      // Errors that name no metafield: the whole call was refused, for a reason a retry will not change.
      for (const { row } of pending) outcome.set(row.customerId, errors.map((e) => e.message).join("; "));
      return outcome;
    }
    for (const [position, message] of refused) outcome.set(pending[position]!.row.customerId, message);
    pending = pending.filter((_, position) => !refused.has(position));
  }
  return outcome;
}

/** Removes the metafield of customers whose lists are empty (the platform keeps no empty list value). */
async function deleteValues(client: AdminCaller, rows: MetafieldSyncRow[]): Promise<Map<string, string | null>> {
  const answer = await client.ask("metafield removal", DELETE_METAFIELDS, {
    metafields: rows.map((row) => ({
      ownerId: customerGid(row.customerId),
      namespace: METAFIELD_NAMESPACE,
      key: METAFIELD_KEY,
    })),
  });
  const { userErrors } = present(answer.metafieldsDelete, "the metafield removal's result");
  const message = userErrors.map((error) => error.message).join("; ") || null;
  return new Map(rows.map((row) => [row.customerId, message]));
}

/**
 * The backfill asked for at `requestedAt`: marks every customer with a list as owing a write, a page at a
 * time outside any transaction (a shop with 200,000 customers never holds a lock for the whole of them),
 * then records it done. Stops early when the merchant turned the sync off (or off and on) meanwhile; the
 * caller reads the setting again either way. Run again after a crash, it marks the same customers again.
 */
async function backfill(shopId: string, requestedAt: Date): Promise<number> {
  let marked = 0;
  let after: string | null = null;
  for (;;) {
    const customerIds = await customersWithLists(database(), shopId, after, BACKFILL_PAGE);
    if (customerIds.length > 0) await markCustomersChanged(database(), shopId, customerIds, new Date());
    marked += customerIds.length;
    if (customerIds.length < BACKFILL_PAGE) break;
    after = customerIds.at(-1)!;
    const shop = await findShopById(database(), shopId);
    if (shop?.metafieldBackfillAt?.getTime() !== requestedAt.getTime()) return marked;
  }
  await finishMetafieldBackfill(database(), shopId, requestedAt);
  logger.info({ shopId, marked }, "metafield sync backfill marked");
  return marked;
}

/** The merchant turned the sync off (or the app was uninstalled) while the job was writing. */
class SyncStopped extends Error {}

export interface SyncSummary {
  /** Customers the backfill marked as owing a write. */
  backfilled: number;
  written: number;
  removed: number;
  refused: number;
  calls: number;
  skipped?: "not-syncing" | "no-shop";
}

/**
 * The worker's job for one shop: writes the metafield of every customer who owes one, 25 per call, until
 * none is left. A shop that stopped syncing (setting off, app uninstalled) is written nothing; with the
 * setting off, what it owed is forgotten.
 */
export async function syncShopMetafields(
  { shopId }: { shopId: string },
  { sleep }: { sleep?: (ms: number) => Promise<void> } = {},
): Promise<SyncSummary> {
  const summary: SyncSummary = { backfilled: 0, written: 0, removed: 0, refused: 0, calls: 0 };
  const shop = await findShopById(database(), shopId);
  if (!shop) return { ...summary, skipped: "no-shop" };
  // Read again before every call, retries and throttled waits included: a merchant who turns the sync off
  // (for the customers' privacy, say) gets no write that starts after the change.
  const beforeCall = async () => {
    if (!(await syncEnabled(database(), shopId))) throw new SyncStopped();
  };
  const client = createAdminCaller({ shopDomain: shop.domain, sleep, beforeCall });
  for (;;) {
    const current = await findShopById(database(), shopId);
    if (!current || current.uninstalledAt !== null) return { ...summary, calls: client.calls, skipped: "not-syncing" };
    if (!readShopSettings(current.settings).metafieldSyncEnabled) {
      definitionsEnsured.delete(shopId); // turned on again later, the definition is checked again
      const forgotten = await deleteShopMetafieldSyncs(database(), shopId);
      if (forgotten > 0) logger.info({ shopId, forgotten }, "metafield sync is off: its records forgotten");
      return { ...summary, calls: client.calls, skipped: "not-syncing" };
    }
    try {
      await ensureDefinition(client, shopId);
    } catch (error) {
      if (error instanceof SyncStopped) continue; // read again at the top: off, what was owed is forgotten
      throw error;
    }
    if (current.metafieldBackfillAt !== null) {
      summary.backfilled += await backfill(shopId, current.metafieldBackfillAt);
      continue; // the setting is read again: it may have changed while the backfill ran
    }
    const rows = await findChangedCustomers(database(), shopId, METAFIELDS_PER_CALL);
    if (rows.length === 0) return { ...summary, calls: client.calls };

    const owed: Owed[] = [];
    const empty: MetafieldSyncRow[] = [];
    for (const row of rows) {
      const productIds = await savedProductIds(database(), shopId, row.customerId, METAFIELD_MAX_PRODUCTS);
      if (productIds.length > 0) owed.push({ row, productIds });
      else empty.push(row);
    }
    const outcomes = new Map<string, string | null>();
    try {
      if (owed.length > 0) for (const [id, error] of await writeValues(client, owed)) outcomes.set(id, error);
      if (empty.length > 0) for (const [id, error] of await deleteValues(client, empty)) outcomes.set(id, error);
    } catch (error) {
      if (error instanceof SyncStopped) continue;
      throw error;
    }

    const at = new Date();
    await transaction(async (tx) => {
      for (const row of rows) {
        const error = outcomes.get(row.customerId) ?? null;
        await markCustomerSynced(tx, shopId, row.customerId, { changedAt: row.changedAt, error }, at);
      }
    });
    for (const row of rows) {
      const error = outcomes.get(row.customerId) ?? null;
      if (error) {
        summary.refused += 1;
        logger.warn({ shopId, customerId: row.customerId, reason: error }, "the platform refused a metafield write");
      }
    }
    summary.written += owed.filter(({ row }) => !outcomes.get(row.customerId)).length;
    summary.removed += empty.filter((row) => !outcomes.get(row.customerId)).length;
  }
}

/** The shops owing writes whose job may be missing (the sweep), at most `limit`. */
export function shopsOwingMetafields(limit = 1_000): Promise<string[]> {
  return findShopsOwingMetafields(database(), limit);
}
