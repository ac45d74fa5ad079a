import { createServer, type IncomingMessage, type Server } from "node:http";
import { answerAdminGraphql } from "../../stand-in/admin-graphql";
import type { StandInShop } from "../../stand-in/demo-data";

export interface RecordedCall {
  path: string;
  accessToken: string | undefined;
  query: string;
  variables: Record<string, unknown>;
  at: number;
}

/** What the fake answers a call with: a body and status, a hang, or a dropped connection. */
type Answer = { status: number; body: unknown } | "hang" | "drop";
type Reply = (call: RecordedCall) => Answer | Promise<Answer>;

/**
 * A stand-in for the platform's Admin GraphQL API on loopback: it checks the access token and the API
 * path, records each call, and answers with whatever the test sets (a body, a status, a hang, or a
 * dropped connection), or with the platform stand-in's GraphQL engine (`standInGraphql`).
 */
export async function startFakeAdminApi() {
  const calls: RecordedCall[] = [];
  let reply: Reply = () => ({
    status: 200,
    body: { data: {} },
  });
  const server: Server = createServer(async (request: IncomingMessage, response) => {
    let raw = "";
    for await (const chunk of request) raw += chunk;
    const call = {
      path: request.url ?? "",
      accessToken: request.headers["x-shopify-access-token"] as string | undefined,
      query: (JSON.parse(raw || "{}") as { query?: string }).query ?? "",
      variables: (JSON.parse(raw || "{}") as { variables?: Record<string, unknown> }).variables ?? {},
      at: Date.now(),
    };
    calls.push(call);
    const answer = await reply(call);
    if (answer === "hang") return; // never answers: the client must time out
    if (answer === "drop") return void request.socket.destroy(); // the connection dies: unreachable
    response.writeHead(answer.status, { "content-type": "application/json" });
    response.end(JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  return {
    origin,
    calls,
    answer(handler: typeof reply) {
      reply = handler;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The `themes` answer for a published theme whose settings_data.json has these app embed blocks. */
export function themeWithBlocks(blocks: Record<string, { type: string; disabled?: boolean }>, comment = true) {
  const settings = JSON.stringify({ current: { blocks }, presets: {} });
  return {
    data: {
      themes: {
        nodes: [
          {
            id: "gid://shopify/OnlineStoreTheme/123456789",
            name: "Dawn",
            files: {
              nodes: [
                { body: { content: `${comment ? "/*\n * written by the theme editor\n */\n" : ""}${settings}` } },
              ],
            },
          },
        ],
      },
    },
  };
}

/**
 * The platform's THROTTLED answer: the bucket holds `available` of `maximum` points and refills at
 * `restoreRate` a second, too few for a query of `cost` (the caller waits for the missing points).
 */
export function throttledAnswer({
  cost,
  available = 0,
  maximum,
  restoreRate,
}: {
  cost: number;
  available?: number;
  maximum: number;
  restoreRate: number;
}) {
  return {
    status: 200,
    body: {
      errors: [{ message: "Throttled", extensions: { code: "THROTTLED" } }],
      extensions: {
        cost: {
          requestedQueryCost: cost,
          actualQueryCost: null,
          throttleStatus: { maximumAvailable: maximum, currentlyAvailable: available, restoreRate },
        },
      },
    },
  };
}

/**
 * The shop's customers for the import's two lookups, with the platform's cost report: the customers
 * search by email (`email:"a" OR email:"b"`) answered from `directory` (email -> numeric id), and the
 * `nodes(ids: [...])` check of customer ids (null for an id that is no customer of the shop), which knows
 * the directory's ids and `ids` (a list, or a test of an id). `bucket` simulates the cost-based rate
 * limit: each query costs `cost` points; when the bucket cannot pay, the answer is THROTTLED.
 */
export function customerSearch(
  directory: Record<string, string>,
  bucket = { available: 1_000, maximum: 1_000, restoreRate: 50, cost: 10 },
  { ids = [] }: { ids?: Iterable<string> | ((id: string) => boolean) } = {},
) {
  const listed = typeof ids === "function" ? null : new Set([...ids, ...Object.values(directory)]);
  const isCustomer = (id: string) =>
    listed ? listed.has(id) : (ids as (id: string) => boolean)(id) || Object.values(directory).includes(id);
  let last: number | undefined; // the bucket starts refilling at the first call
  return (call: RecordedCall) => {
    const now = Date.now();
    last ??= now;
    bucket.available = Math.min(bucket.maximum, bucket.available + ((now - last) / 1000) * bucket.restoreRate);
    last = now;
    const throttleStatus = () => ({
      maximumAvailable: bucket.maximum,
      currentlyAvailable: Math.floor(bucket.available),
      restoreRate: bucket.restoreRate,
    });
    if (bucket.available < bucket.cost) {
      const { currentlyAvailable, maximumAvailable, restoreRate } = throttleStatus();
      return throttledAnswer({
        cost: bucket.cost,
        available: currentlyAvailable,
        maximum: maximumAvailable,
        restoreRate,
      });
    }
    bucket.available -= bucket.cost;
    const cost = {
      cost: { requestedQueryCost: bucket.cost, actualQueryCost: bucket.cost, throttleStatus: throttleStatus() },
    };
    if (Array.isArray(call.variables.ids)) {
      // nodes(ids:) answers in the order asked, null where the id names nothing.
      const nodes = (call.variables.ids as string[]).map((gid) => {
        const id = /^gid:\/\/shopify\/Customer\/(\d+)$/.exec(gid)?.[1];
        return id && isCustomer(id) ? { id: gid } : null;
      });
      return { status: 200, body: { data: { nodes }, extensions: cost } };
    }
    const wanted = [...String(call.variables.query ?? "").matchAll(/email:"((?:[^"\\]|\\.)*)"/g)].map((match) =>
      match[1]!.replace(/\\(.)/g, "$1").toLowerCase(),
    );
    const nodes = wanted
      .filter((email) => directory[email])
      .map((email) => ({
        id: `gid://shopify/Customer/${directory[email]}`,
        defaultEmailAddress: { emailAddress: email },
      }));
    return {
      status: 200,
      body: {
        data: { customers: { nodes } },
        extensions: {
          cost: { requestedQueryCost: bucket.cost, actualQueryCost: bucket.cost, throttleStatus: throttleStatus() },
        },
      },
    };
  };
}

/**
 * Answers every call with the platform stand-in's GraphQL engine (stand-in/admin-graphql.ts) for `shop`: a
 * query or mutation the platform would refuse (an unknown field, a wrong input type) is refused here too.
 */
export function standInGraphql(shop: StandInShop) {
  return async (call: RecordedCall) => ({
    status: 200,
    body: await answerAdminGraphql(shop, { query: call.query, variables: call.variables }),
  });
}

/** Whether a call is the worker's product lookup (product snapshots): `nodes(ids:)` of product GIDs only. */
export function isProductLookup(call: RecordedCall): boolean {
  const ids = call.variables.ids;
  return (
    // The snapshots' query; the alerts' reading of the same products (WishlistProductStates) is another.
    call.query.includes("WishlistProductSnapshots") &&
    Array.isArray(ids) &&
    ids.length > 0 &&
    ids.every((id) => typeof id === "string" && id.startsWith("gid://shopify/Product/"))
  );
}

/**
 * The `nodes(ids:)` answer of a catalogue (numeric product id -> title and handle): a product node for each
 * id it holds, null for the others, in the order asked, with the platform's cost report (1 + 1 per node).
 */
export function productCatalogue(products: Record<string, { title: string; handle: string }>): Reply {
  return (call) => {
    const nodes = ((call.variables.ids as string[] | undefined) ?? []).map((gid) => {
      const id = /^gid:\/\/shopify\/Product\/(\d+)$/.exec(gid)?.[1];
      const product = id ? products[id] : undefined;
      return product ? { id: gid, ...product } : null;
    });
    const cost = 1 + nodes.length;
    return {
      status: 200,
      body: {
        data: { nodes },
        extensions: {
          cost: {
            requestedQueryCost: cost,
            actualQueryCost: cost,
            throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 2000 - cost, restoreRate: 100 },
          },
        },
      },
    };
  };
}

/**
 * `rest` for every call but the worker's product lookups, which `products` answers (by default: products
 * the shop does not have). Tests of other Admin API callers use it so that snapshot runs of the items they
 * save neither spend their simulated budget nor count among their calls.
 */
export function withProductLookups(rest: Reply, products: Reply = productCatalogue({})): Reply {
  return (call) => (isProductLookup(call) ? products(call) : rest(call));
}
