import { randomUUID } from "node:crypto";
import { expect } from "vitest";
import { database } from "~/data/database.server";
import { isProblemSlug, PROBLEM_TYPES } from "~/lib/problems";
import { createWebhookEndpoint } from "../factories";
import { freePort, startProcess } from "../support/processes";
import { owedDeliveries, pendingEvents } from "../support/webhook-rows";
import { until } from "../support/poll";

/**
 * Storefront load for the fault tests (tests/faults): loops of heart-button toggles through the public key,
 * as a headless storefront sends them, against a real web process. Each shopper belongs to one loop, so its
 * last answered toggle of a product tells the state the database must hold afterwards. With LOG_FAULTS=1 the
 * tests print what the load saw (toggles accepted and refused, and how long each phase took).
 */

export interface Refusal {
  status: number;
  slug: string;
  detail: string;
}

export interface LoadRecord {
  /** Requests answered 2xx: each must have written its change and exactly one event. */
  accepted: number;
  /** Requests answered with a problem document of the catalogue (4xx, or a 503). */
  refused: Refusal[];
  /** Anything else: a connection error, a hang, a 5xx other than 503, a body that is no catalogue problem. */
  violations: string[];
  /** `${anonymousId}|${productId}` -> whether the last 2xx said the product is saved. */
  told: Map<string, boolean>;
}

const REQUEST_TIMEOUT_MS = 30_000;

/** Checks one non-2xx answer against the problem catalogue (app/lib/problems.ts); returns what is wrong. */
async function refusalOf(response: Response, origin: string): Promise<Refusal | string> {
  const text = await response.text();
  const contentType = response.headers.get("content-type");
  if (contentType !== "application/problem+json") {
    return `${response.status} with ${contentType ?? "no content type"}: ${text.slice(0, 200)}`;
  }
  const problem = JSON.parse(text) as { type?: string; status?: number; detail?: string };
  const slug = problem.type?.startsWith(`${origin}/problems/`) ? problem.type.slice(`${origin}/problems/`.length) : "";
  if (!isProblemSlug(slug) || PROBLEM_TYPES[slug].status !== response.status || problem.status !== response.status) {
    return `${response.status} is no problem of the catalogue: ${text.slice(0, 200)}`;
  }
  if (response.status >= 500 && response.status !== 503) return `${response.status} ${slug}: ${problem.detail}`;
  if (response.status === 503 && response.headers.get("retry-after") === null) return `503 ${slug} without Retry-After`;
  return { status: response.status, slug, detail: problem.detail ?? "" };
}

/**
 * Starts `loops` loops of toggles on `baseUrl` (the web process) for the shop, each with its own shoppers,
 * until `stop()` or `maxRequests` in all. The web process must run with storefront rate limits high enough
 * for the load (RATE_LIMIT_STOREFRONT_PER_MINUTE, RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE).
 */
export function startStorefrontLoad({
  baseUrl,
  shop,
  loops = 6,
  shoppersPerLoop = 3,
  products = 8,
  maxRequests = 40_000,
}: {
  baseUrl: string;
  shop: { domain: string; publicKey: string };
  loops?: number;
  shoppersPerLoop?: number;
  products?: number;
  maxRequests?: number;
}) {
  const record: LoadRecord = { accepted: 0, refused: [], violations: [], told: new Map() };
  let sent = 0;
  let stopped = false;
  const headers = {
    "Content-Type": "application/json",
    "X-Service-Shop": shop.domain,
    "X-Service-Public-Key": shop.publicKey,
  };
  const origin = baseUrl.replace("127.0.0.1", "localhost"); // SHOPIFY_APP_URL, set by startWeb

  const loop = async () => {
    const shoppers = Array.from({ length: shoppersPerLoop }, () => randomUUID());
    for (let n = 0; !stopped && sent < maxRequests; n++) {
      sent += 1;
      const anonymousId = shoppers[n % shoppers.length]!;
      const productId = String(1000 + Math.floor(Math.random() * products));
      try {
        const response = await fetch(`${baseUrl}/v1/storefront/wishlist/toggle`, {
          method: "POST",
          headers,
          body: JSON.stringify({ productId, handle: `product-${productId}`, anonymousId }),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        if (response.ok) {
          const body = (await response.json()) as { added: boolean };
          record.accepted += 1;
          record.told.set(`${anonymousId}|${productId}`, body.added);
          continue;
        }
        const refusal = await refusalOf(response, origin);
        if (typeof refusal === "string") record.violations.push(refusal);
        else record.refused.push(refusal);
      } catch (error) {
        record.violations.push(`request failed: ${String(error)}`);
      }
    }
  };
  const running = Promise.all(Array.from({ length: loops }, loop));

  return {
    record,
    /** Resolves once `count` more requests than now have been answered 2xx. */
    async acceptedMore(count: number, what: string) {
      const from = record.accepted;
      await until(
        () => record.accepted,
        (accepted) => accepted >= from + count || stopped || sent >= maxRequests,
        what,
        180_000,
      );
      expect(record.accepted, `${what} (the load stopped first)`).toBeGreaterThanOrEqual(from + count);
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** /readyz of the web process: its status and body. */
export async function readiness(baseUrl: string) {
  const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    body: (await response.json()) as { detail?: string; checks?: Record<string, string> },
  };
}

/** Polls /readyz until `check` says ready or not, as wanted; returns the last answer. */
export function readinessUntil(
  baseUrl: string,
  done: (answer: Awaited<ReturnType<typeof readiness>>) => boolean,
  what: string,
) {
  return until(() => readiness(baseUrl), done, what, 120_000);
}

/**
 * What the database holds matches what the load's shoppers were told: every 2xx toggle wrote exactly one
 * event (item.added or item.removed) and the item's state is the one its last 2xx answer gave; a refused
 * toggle left neither.
 */
export async function expectDatabaseMatches(shopId: string, record: LoadRecord) {
  const events = await database()
    .selectFrom("Event")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("shopId", "=", shopId)
    .where("type", "in", ["item.added", "item.removed"])
    .executeTakeFirstOrThrow();
  expect(Number(events.n)).toBe(record.accepted);
  const saved = await database()
    .selectFrom("Item as i")
    .innerJoin("List as l", "l.id", "i.listId")
    .select(["l.anonymousId", "i.productId"])
    .where("i.shopId", "=", shopId)
    .execute();
  const stored = new Set(saved.map((item) => `${item.anonymousId}|${item.productId}`));
  const expected = new Set([...record.told].filter(([, added]) => added).map(([key]) => key));
  expect([...stored].sort()).toEqual([...expected].sort());
}

/** Every item event of the shop, by id. */
export async function eventIds(shopId: string): Promise<string[]> {
  const rows = await database()
    .selectFrom("Event")
    .select("id")
    .where("shopId", "=", shopId)
    .where("type", "in", ["item.added", "item.removed"])
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Waits until the receiver has had every item event of the shop at least once, nothing is left in the
 * outbox and the database owes no delivery any more (WebhookDeliveryDue empty for the shop).
 */
export async function expectEveryEventDelivered(shopId: string, received: { body: Buffer }[], timeoutMs = 150_000) {
  const ids = await eventIds(shopId);
  // Bodies already read are not parsed again: a poll reads only what arrived since the last one.
  const delivered = new Set<string>();
  let read = 0;
  const missing = () => {
    for (; read < received.length; read++) {
      delivered.add((JSON.parse(received[read]!.body.toString("utf8")) as { id: string }).id);
    }
    return ids.filter((id) => !delivered.has(id));
  };
  await until(missing, (left) => left.length === 0, `every one of ${ids.length} events delivered`, timeoutMs);
  await until(
    () => pendingEvents(shopId),
    (count) => count === 0,
    "the outbox empty",
  );
  await until(
    () => owedDeliveries(shopId),
    (count) => count === 0,
    "no delivery owed any more",
  );
  return ids.length;
}

/**
 * The real web process (server/index.ts) on a free port with `env`, once /healthz answers; storefront rate
 * limits are raised so that the load measures the faults, not the limits.
 */
export async function startWeb(env: Record<string, string>) {
  const port = await freePort();
  const web = startProcess("server/index.ts", {
    NODE_ENV: "test",
    PORT: String(port),
    HOST: "127.0.0.1",
    SHOPIFY_APP_URL: `http://localhost:${port}`,
    RATE_LIMIT_STOREFRONT_PER_MINUTE: "1000000",
    RATE_LIMIT_STOREFRONT_PER_ADDRESS_PER_MINUTE: "1000000",
    ...env,
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  await until(
    () =>
      fetch(`${baseUrl}/healthz`).then(
        (response) => response.ok,
        () => {
          if (web.child.exitCode !== null) throw new Error(`the web process exited:\n${web.output()}`);
          return false;
        },
      ),
    Boolean,
    "the web process answering /healthz",
  );
  return { web, baseUrl };
}

/** A webhook endpoint of the shop on `url`, subscribed to both item events. */
export async function subscribeToItemEvents(shopId: string, url: string) {
  const { endpoint } = await createWebhookEndpoint(shopId, url);
  await database()
    .updateTable("WebhookEndpoint")
    .set({ events: JSON.stringify(["item.added", "item.removed"]) })
    .where("id", "=", endpoint.id)
    .where("shopId", "=", shopId)
    .execute();
  return endpoint;
}
