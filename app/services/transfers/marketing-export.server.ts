/**
 * The marketing export (docs/imports.md, "The marketing export"; docs/decisions/036-marketing-export.md): one
 * row per item a customer saved, with what a campaign needs and the generic export lacks: the customer's
 * email and name, the product's and the variant's titles and the price. The generic export stays as the
 * contract has it (its six columns re-import cleanly); this file is not meant to be imported.
 *
 * It is personal data, read only here and only for this file: names and emails come from the platform's Admin
 * API (`read_customers`, protected customer data), asked with `nodes(ids:)` 250 ids at a time and paced by
 * the cost-based rate limit; nothing of them is stored but the file. Guest rows are left out: a guest has no
 * email or name, and their anonymous id is a capability. Each row carries `customer_id`, so a customers/redact
 * finds and deletes the file (app/services/compliance). The formula guard applies as in the generic export.
 */
import type { Readable } from "node:stream";
import { DomainError, isDomainError } from "~/lib/domain-error";
import { createAdminCaller, NODES_PER_QUERY, PlatformUnavailable } from "~/services/platform/admin-api.server";
import { itemExportStream } from "./item-export-stream.server";

export const MARKETING_COLUMNS = [
  "customer_id",
  "email",
  "first_name",
  "last_name",
  "product_id",
  "product_title",
  "variant_id",
  "variant_title",
  "price",
  "currency",
  "added_at",
];

const DETAILS = `#graphql
  query WishlistMarketingExport($ids: [ID!]!) {
    shop { currencyCode }
    nodes(ids: $ids) {
      ... on Customer { id firstName lastName defaultEmailAddress { emailAddress } }
      ... on Product { id title priceRangeV2 { minVariantPrice { amount } } }
      ... on ProductVariant { id title price }
    }
  }`;

/** A node as the rows read it, whichever of the three it is (the fields of the others absent). */
type Node = {
  id?: string;
  firstName?: string | null;
  lastName?: string | null;
  defaultEmailAddress?: { emailAddress: string | null } | null;
  title?: string;
  priceRangeV2?: { minVariantPrice: { amount: string } };
  price?: string;
};

const gid = (type: string, id: string) => `gid://shopify/${type}/${id}`;

/**
 * What the merchant reads when the platform cannot give the customers' details: what happened, that no file
 * was written, and what to do. The error keeps its code and whether it may pass (the worker retries those).
 */
function unreadable(error: unknown): unknown {
  if (isDomainError(error, "platform_not_connected")) {
    return new DomainError(
      "platform_not_connected",
      "The customers' names and emails could not be read (Admin API access refused). No file was written. Open " +
        "the app from the shop's admin to reconnect it, or reinstall the app, then export again.",
      { cause: error },
    );
  }
  if (error instanceof PlatformUnavailable) {
    const what = error.transient
      ? `could not be reached (Admin API ${error.reason}). No file was written. Export again later.`
      : `could not be read (Admin API ${error.reason}: ${error.message}) No file was written. The app needs the ` +
        "read_customers scope and the platform's approval for customer names and emails: reinstall the app, " +
        "then export again.";
    return new PlatformUnavailable(`The customers' names and emails ${what}`, error.reason, {
      transient: error.transient,
      retryAfterSeconds: error.retryAfterSeconds,
      cause: error,
    });
  }
  return error;
}

/** The marketing CSV as a stream of text chunks, one per batch of items; `onRows` hears the running total. */
export function exportMarketingCsv(
  { shopId, shopDomain }: { shopId: string; shopDomain: string },
  onRows?: (rows: number) => void,
): Readable {
  const caller = createAdminCaller({ shopDomain });
  // Every node asked for, for the whole job (null: the shop has no such customer, product or variant).
  const known = new Map<string, Node | null>();
  let currency = "";

  async function lookUp(ids: string[]) {
    const wanted = [...new Set(ids)].filter((id) => !known.has(id));
    for (let index = 0; index < wanted.length; index += NODES_PER_QUERY) {
      const batch = wanted.slice(index, index + NODES_PER_QUERY);
      const data = await caller.ask("customer and product details", DETAILS, { ids: batch });
      currency = data.shop.currencyCode;
      for (const id of batch) known.set(id, null);
      for (const node of data.nodes) if (node?.id && known.has(node.id)) known.set(node.id, node);
    }
  }

  return itemExportStream(
    shopId,
    MARKETING_COLUMNS,
    async (live) => {
      const saved = live.filter((row) => row.customerId !== null);
      if (saved.length === 0) return [];
      await lookUp(
        saved.flatMap((row) => [
          gid("Customer", row.customerId!),
          gid("Product", row.productId),
          ...(row.variantId ? [gid("ProductVariant", row.variantId)] : []),
        ]),
      ).catch((error: unknown) => {
        throw unreadable(error);
      });
      const lines: string[][] = [];
      for (const row of saved) {
        // A customer the shop no longer has (deleted, or erased by the platform) has nobody to write to.
        const customer = known.get(gid("Customer", row.customerId!));
        if (!customer) continue;
        const product = known.get(gid("Product", row.productId));
        const variant = row.variantId ? known.get(gid("ProductVariant", row.variantId)) : null;
        const price = variant?.price ?? product?.priceRangeV2?.minVariantPrice.amount ?? "";
        lines.push([
          row.customerId!,
          customer.defaultEmailAddress?.emailAddress ?? "",
          customer.firstName ?? "",
          customer.lastName ?? "",
          row.productId,
          // A product the platform no longer has: its last catalogue title, never one a shopper sent.
          product?.title ?? (row.catalogueTitleAt === null ? "" : row.titleSnapshot),
          row.variantId,
          variant?.title ?? "",
          price,
          price === "" ? "" : currency,
          row.addedAt.toISOString(),
        ]);
      }
      return lines;
    },
    onRows,
  );
}
