/**
 * Product names for the analytics pages. The rollups know products by id; the report gives the title and
 * handle the catalogue last gave a saved item, never what a shopper sent (decision 029). What is missing is
 * asked of the platform's Admin API (`nodes(ids:)`); when the platform cannot answer, "Product <id>" stands
 * in, so the pages never fail on a name.
 */
import { isDomainError } from "~/lib/domain-error";
import { adminGraphql, NODES_PER_QUERY } from "~/services/platform/admin-api.server";

const PRODUCTS_BY_ID = `#graphql
  query WishlistProductTitles($ids: [ID!]!) {
    nodes(ids: $ids) {
      ... on Product { id title handle }
    }
  }`;

interface Named {
  productId: string;
  handle: string | null;
  title: string | null;
}

/**
 * The rows with a `title` for each: the catalogue's title the report found, else the platform's current
 * title, else the catalogue's handle, else "Product <id>". `handle` is filled from the platform when the
 * report had none.
 */
export async function withProductTitles<Row extends Named>({
  shopDomain,
  rows,
}: {
  shopDomain: string;
  rows: Row[];
}): Promise<Array<Row & { title: string }>> {
  const untitled = [...new Set(rows.filter((row) => !row.title).map((row) => row.productId))];
  const found = await findProducts(shopDomain, untitled);
  return rows.map((row) => {
    const product = found.get(row.productId);
    const handle = row.handle ?? product?.handle ?? null;
    return { ...row, handle, title: row.title || product?.title || handle || `Product ${row.productId}` };
  });
}

async function findProducts(shopDomain: string, productIds: string[]) {
  const found = new Map<string, { title: string; handle: string }>();
  try {
    for (let start = 0; start < productIds.length; start += NODES_PER_QUERY) {
      const ids = productIds.slice(start, start + NODES_PER_QUERY).map((id) => `gid://shopify/Product/${id}`);
      const { nodes } = await adminGraphql({ shopDomain, query: PRODUCTS_BY_ID, variables: { ids } });
      for (const node of nodes) {
        const id = node?.id?.split("/").at(-1);
        if (id && node?.title && node.handle) found.set(id, { title: node.title, handle: node.handle });
      }
    }
  } catch (error) {
    if (!isDomainError(error, "platform_unavailable") && !isDomainError(error, "platform_not_connected")) throw error;
  }
  return found;
}
