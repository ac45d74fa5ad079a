/**
 * Import rule 3 (docs/imports.md): every row must resolve to a customer of the shop, by customer id when
 * the row has one (checked through the platform's Admin GraphQL API: the id must be a customer of this
 * shop), otherwise by email. Both are asked in batches (250 ids per `nodes` query, 50 emails per search
 * query), each answer is cached for the whole job (found or not), and calls are paced by the platform's
 * cost-based rate limit: a THROTTLED answer or an HTTP 429 waits as long as the platform says, and a
 * nearly empty bucket waits before the next call. A transient failure (no connection, a timeout, a 5xx)
 * is asked again after a backoff before the error reaches the job, which BullMQ then retries as a whole
 * (`createAdminCaller` in services/platform/admin-api.server.ts).
 */
import { createAdminCaller, NODES_PER_QUERY } from "~/services/platform/admin-api.server";
import { parsePlatformId } from "./values";

export const EMAILS_PER_QUERY = 50;

const BY_EMAIL = `#graphql
  query CustomersByEmail($query: String!, $first: Int!) {
    customers(first: $first, query: $query) {
      nodes { id defaultEmailAddress { emailAddress } }
    }
  }`;

const BY_ID = `#graphql
  query CustomersById($ids: [ID!]!) {
    nodes(ids: $ids) { ... on Customer { id } }
  }`;

export interface CustomerLookup {
  /** Customer ids (digits) by lowercased email; null where the shop has no such customer. */
  resolve(emails: Iterable<string>): Promise<Map<string, string | null>>;
  /** Whether each customer id (digits) is a customer of the shop. */
  resolveIds(ids: Iterable<string>): Promise<Map<string, boolean>>;
  readonly calls: number;
}

/** The platform's search syntax: a quoted value with backslashes and quotes escaped. */
function searchTerm(email: string) {
  return `email:"${email.replace(/["\\]/g, (match) => `\\${match}`)}"`;
}

export function createCustomerLookup({
  shopDomain,
  sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
}: {
  shopDomain: string;
  sleep?: (ms: number) => Promise<void>;
}): CustomerLookup {
  const byEmail = new Map<string, string | null>();
  const byId = new Map<string, boolean>();
  const caller = createAdminCaller({ shopDomain, sleep });
  const ask = caller.ask;

  async function lookupEmails(batch: string[]) {
    const data = await ask("email lookup", BY_EMAIL, {
      query: batch.map(searchTerm).join(" OR "),
      first: 250,
    });
    const wanted = new Set(batch);
    for (const email of batch) byEmail.set(email, null);
    for (const node of data.customers.nodes) {
      const email = node.defaultEmailAddress?.emailAddress?.trim().toLowerCase();
      const id = parsePlatformId(node.id, "Customer");
      // The search is fuzzy on some fields: keep exact matches only, the first customer per email.
      if (email && id && wanted.has(email) && byEmail.get(email) === null) byEmail.set(email, id);
    }
  }

  async function lookupIds(batch: string[]) {
    const data = await ask("customer id check", BY_ID, {
      ids: batch.map((id) => `gid://shopify/Customer/${id}`),
    });
    for (const id of batch) byId.set(id, false);
    // Unknown ids come back as null, ids of other types as an empty object: only customers count.
    for (const node of data.nodes) {
      const id = node?.id ? parsePlatformId(node.id, "Customer") : null;
      if (id && byId.has(id)) byId.set(id, true);
    }
  }

  return {
    get calls() {
      return caller.calls;
    },
    resolve: (emails) => resolveCached(emails, byEmail, EMAILS_PER_QUERY, lookupEmails, null),
    resolveIds: (ids) => resolveCached(ids, byId, NODES_PER_QUERY, lookupIds, false),
  };
}

/** Values for `keys` from `cache`, asking `lookup` (which fills the cache) for the unknown ones in batches. */
async function resolveCached<V>(
  keys: Iterable<string>,
  cache: Map<string, V>,
  batchSize: number,
  lookup: (batch: string[]) => Promise<void>,
  missing: V,
): Promise<Map<string, V>> {
  const wanted = [...new Set(keys)];
  const unknown = wanted.filter((key) => !cache.has(key));
  for (let index = 0; index < unknown.length; index += batchSize) {
    await lookup(unknown.slice(index, index + batchSize));
  }
  return new Map(wanted.map((key) => [key, cache.get(key) ?? missing]));
}
