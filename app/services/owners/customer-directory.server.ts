/**
 * Customers' names and emails for the admin's list pages, read from the platform when a page is shown
 * (docs/decisions/031-list-owners-from-the-platform.md). They are protected customer data: never written to
 * the database nor logged, and held in this process's memory for CONTACT_TTL_MS at most, so a name changed
 * or erased in the shop (customers/redact, shop/redact) is gone from our pages within that time. Every
 * entry is keyed by the shop, so one shop's answer never names another shop's customer.
 *
 * The platform may not answer (the shop uninstalled, its token refused, throttled, a timeout): the page
 * still renders, the owners shown by their ids (`unavailable`).
 */
import { isDomainError } from "~/lib/domain-error";
import { adminGraphql, NODES_PER_QUERY } from "~/services/platform/admin-api.server";

/** What the platform says of one customer; null fields where it has none (a customer with no email). */
export interface CustomerContact {
  name: string | null;
  email: string | null;
}

/** How long a name and email read from the platform are shown without asking again. */
export const CONTACT_TTL_MS = 60_000;
/** Entries held at most (the oldest go first): a bound on memory, whatever the number of shops. */
const MAX_ENTRIES = 10_000;
/** Customers a search filters by at most: the platform's largest page. */
export const SEARCH_LIMIT = 250;

const OWNERS_BY_ID = `#graphql
  query WishlistListOwners($ids: [ID!]!) {
    nodes(ids: $ids) { ... on Customer { id displayName defaultEmailAddress { emailAddress } } }
  }`;

const CUSTOMER_SEARCH = `#graphql
  query WishlistListOwnerSearch($query: String!, $first: Int!) {
    customers(first: $first, query: $query) { nodes { id } }
  }`;

const customerGid = (id: string) => `gid://shopify/Customer/${id}`;
const customerIdOf = (gid: string | undefined) => /^gid:\/\/shopify\/Customer\/(\d+)$/.exec(gid ?? "")?.[1];

/** shop id + customer id -> what the platform answered (null: no such customer any more) and until when. */
const contacts = new Map<string, { contact: CustomerContact | null; until: number }>();
const entryKey = (shopId: string, customerId: string) => `${shopId}\u0000${customerId}`;

function remember(key: string, contact: CustomerContact | null, now: number) {
  contacts.delete(key);
  contacts.set(key, { contact, until: now + CONTACT_TTL_MS });
  // A Map iterates in insertion order: the first key is the oldest entry.
  while (contacts.size > MAX_ENTRIES) contacts.delete(contacts.keys().next().value!);
}

/** Whether the platform's failure is one to show the ids for (it did not answer), not a bug of ours. */
export function platformDidNotAnswer(error: unknown): boolean {
  return isDomainError(error, "platform_unavailable") || isDomainError(error, "platform_not_connected");
}

/**
 * The name and email of each of these customers of the shop, from memory when read within CONTACT_TTL_MS,
 * else from the platform (one `nodes` query per 250). A customer the platform does not know (deleted,
 * erased) is missing from `contacts`, as is every one asked for while the platform does not answer
 * (`unavailable`: the page says names could not be loaded).
 */
export async function findCustomerContacts({
  shopId,
  shopDomain,
  customerIds,
  now = Date.now(),
}: {
  shopId: string;
  shopDomain: string;
  customerIds: readonly string[];
  now?: number;
}): Promise<{ contacts: Map<string, CustomerContact>; unavailable: boolean }> {
  const found = new Map<string, CustomerContact>();
  const unknown: string[] = [];
  for (const customerId of new Set(customerIds)) {
    const entry = contacts.get(entryKey(shopId, customerId));
    if (entry && entry.until > now) {
      if (entry.contact) found.set(customerId, entry.contact);
    } else unknown.push(customerId);
  }
  let unavailable = false;
  for (let index = 0; index < unknown.length && !unavailable; index += NODES_PER_QUERY) {
    const batch = unknown.slice(index, index + NODES_PER_QUERY);
    try {
      const { nodes } = await adminGraphql({
        shopDomain,
        query: OWNERS_BY_ID,
        variables: { ids: batch.map(customerGid) },
      });
      const answered = new Map<string, CustomerContact>();
      for (const node of nodes ?? []) {
        const id = customerIdOf(node?.id);
        if (!id || !node) continue;
        answered.set(id, {
          name: node.displayName?.trim() || null,
          email: node.defaultEmailAddress?.emailAddress?.trim() || null,
        });
      }
      for (const customerId of batch) {
        const contact = answered.get(customerId) ?? null;
        remember(entryKey(shopId, customerId), contact, now);
        if (contact) found.set(customerId, contact);
      }
    } catch (error) {
      if (!platformDidNotAnswer(error)) throw error;
      unavailable = true;
    }
  }
  return { contacts: found, unavailable };
}

/**
 * The platform's search syntax for what a merchant typed to find a customer: an email (it has an `@`) as
 * `email:"..."`; anything else as quoted words, each matched against the customer's default search fields
 * (names, email), all of them required.
 */
export function customerSearchQuery(text: string): string {
  const quote = (value: string) => `"${value.replace(/["\\]/g, (match) => `\\${match}`)}"`;
  const typed = text.trim();
  if (typed.includes("@")) return `email:${quote(typed)}`;
  return typed.split(/\s+/).filter(Boolean).map(quote).join(" ");
}

/**
 * The ids of the shop's customers the platform finds for `text` (a name or an email), at most
 * SEARCH_LIMIT (`more`: there may be others). Not cached: a search term is personal data too. Throws the
 * platform's domain errors when it does not answer; the page then says the search could not run.
 */
export async function searchCustomerIds({
  shopDomain,
  text,
}: {
  shopDomain: string;
  text: string;
}): Promise<{ customerIds: string[]; more: boolean }> {
  const { customers } = await adminGraphql({
    shopDomain,
    query: CUSTOMER_SEARCH,
    variables: { query: customerSearchQuery(text), first: SEARCH_LIMIT },
  });
  const customerIds = customers.nodes.map((node) => customerIdOf(node.id)).filter((id) => id !== undefined);
  return { customerIds, more: customers.nodes.length >= SEARCH_LIMIT };
}
