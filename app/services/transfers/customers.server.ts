import { adminGraphqlPayload } from "~/services/platform/admin-api.server";
import { AppError } from "~/lib/problems";
import { parsePlatformId } from "./values";

/**
 * Import rule 3: a row without a customer id is resolved by email through the platform's Admin GraphQL
 * API. Emails are asked for in batches (one search query per batch), each answer is cached for the whole
 * job (found or not), and calls are paced by the platform's cost-based rate limit: a THROTTLED answer or
 * an HTTP 429 waits as long as the platform says, and a nearly empty bucket waits before the next call.
 */
export const EMAILS_PER_QUERY = 50;
const MAX_THROTTLED_RETRIES = 20;

const QUERY = `query CustomersByEmail($query: String!, $first: Int!) {
  customers(first: $first, query: $query) {
    nodes { id defaultEmailAddress { emailAddress } }
  }
}`;

interface CustomersAnswer {
  customers: { nodes: Array<{ id: string; defaultEmailAddress: { emailAddress: string | null } | null }> };
}

export interface CustomerLookup {
  /** Customer ids (digits) by lowercased email; null where the shop has no such customer. */
  resolve(emails: Iterable<string>): Promise<Map<string, string | null>>;
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
  const cache = new Map<string, string | null>();
  let calls = 0;
  let waitBeforeNext = 0;

  async function lookup(batch: string[]) {
    for (let attempt = 0; ; attempt++) {
      if (waitBeforeNext > 0) await sleep(waitBeforeNext);
      waitBeforeNext = 0;
      calls += 1;
      const payload = await adminGraphqlPayload<CustomersAnswer>({
        shopDomain,
        query: QUERY,
        variables: { query: batch.map(searchTerm).join(" OR "), first: 250 },
      });
      if (payload.throttledForMs !== undefined) {
        if (attempt >= MAX_THROTTLED_RETRIES) {
          throw new AppError("platform-unavailable", { detail: "The platform kept throttling the email lookup." });
        }
        waitBeforeNext = payload.throttledForMs;
        continue;
      }
      if (!payload.data) {
        throw new AppError("platform-unavailable", {
          detail: `The platform's Admin API refused the email lookup: ${payload.errors?.[0]?.message ?? "no data"}.`,
        });
      }
      // Pace the next call: when the bucket cannot pay for another query like this one, wait until it can.
      const status = payload.cost?.throttleStatus;
      const cost = payload.cost?.requestedQueryCost ?? 0;
      if (status && status.currentlyAvailable < cost) {
        waitBeforeNext = Math.ceil(((cost - status.currentlyAvailable) / Math.max(1, status.restoreRate)) * 1000);
      }
      const wanted = new Set(batch);
      for (const email of batch) cache.set(email, null);
      for (const node of payload.data.customers.nodes) {
        const email = node.defaultEmailAddress?.emailAddress?.trim().toLowerCase();
        const id = parsePlatformId(node.id, "Customer");
        // The search is fuzzy on some fields: keep exact matches only, the first customer per email.
        if (email && id && wanted.has(email) && cache.get(email) === null) cache.set(email, id);
      }
      return;
    }
  }

  return {
    get calls() {
      return calls;
    },
    async resolve(emails) {
      const unknown = [...new Set(emails)].filter((email) => !cache.has(email));
      for (let index = 0; index < unknown.length; index += EMAILS_PER_QUERY) {
        await lookup(unknown.slice(index, index + EMAILS_PER_QUERY));
      }
      return new Map([...new Set(emails)].map((email) => [email, cache.get(email) ?? null]));
    },
  };
}
