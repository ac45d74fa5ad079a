// Keeps a CRM's copy of the shop's customer wishlists.
// Pages through every list once (at the start, then nightly):
//   npx tsx --env-file=.env crm-sync.ts full
// Applies each change the webhooks announce, as it happens:
//   npx tsx --env-file=.env --env-file=crm.env crm-sync.ts listen
import { createServer } from "node:http";
import { createWishlistClient, isProblem, paginate } from "@wishlist-service/sdk";
import { verifyWebhook } from "@wishlist-service/sdk/webhooks";
import { openCrm, type Outcome } from "./crm-store";

const wishlist = createWishlistClient({
  baseUrl: process.env.WISHLIST_URL!,
  privateKey: process.env.WISHLIST_PRIVATE_KEY!,
});
const crm = openCrm(process.env.CRM_FILE ?? "crm.json");
const MAX_BODY_BYTES = 1024 * 1024; // a delivery is a few KB

/**
 * Reads the list as it is now and writes that to the CRM: the list, or its removal if it is gone. The CRM
 * keeps customers' lists only (a guest is no contact), and no titles (the service fills them in later,
 * with no event).
 */
async function syncList(listId: string): Promise<Outcome | "skipped"> {
  let list;
  try {
    list = (await wishlist.GET("/lists/{id}", { params: { path: { id: listId } } })).data;
  } catch (error) {
    if (isProblem(error, "not-found")) return crm.remove(listId);
    throw error;
  }
  if (list.owner.type !== "customer") return "skipped";
  return crm.upsert({
    listId: list.id,
    customerId: list.owner.customerId,
    name: list.name,
    updatedAt: list.updatedAt,
    items: list.items.map((item) => ({
      itemId: item.id,
      productId: item.productId,
      variantId: item.variantId,
      addedAt: item.addedAt,
      note: item.note,
      quantity: item.quantity,
    })),
  });
}

async function fullSync() {
  const held = crm.lists();
  const seen = new Set<string>();
  const outcomes: Record<string, number> = {};
  const count = (outcome: string) => (outcomes[outcome] = (outcomes[outcome] ?? 0) + 1);
  const pages = paginate((cursor) => wishlist.GET("/lists", { params: { query: { cursor, limit: 100 } } }));
  for await (const summary of pages) {
    if (summary.owner.type !== "customer") continue;
    seen.add(summary.id);
    // Every change to a list moves its updatedAt: a list the CRM holds at that time needs no read.
    const outcome = held[summary.id]?.updatedAt === summary.updatedAt ? "unchanged" : await syncList(summary.id);
    count(outcome);
  }
  // Lists deleted while nothing listened.
  for (const listId of Object.keys(held)) {
    if (!seen.has(listId)) count(crm.remove(listId));
  }
  console.log(`full sync: ${JSON.stringify(outcomes)}`);
}

/** Runs a list's changes one after another, so the last event's read is the one that stays. */
const running = new Map<string, Promise<unknown>>();
function oneAtATime<T>(listId: string, work: () => Promise<T>): Promise<T> {
  const result = (running.get(listId) ?? Promise.resolve()).then(work, work);
  const done = result.catch(() => {});
  running.set(listId, done);
  void done.then(() => running.get(listId) === done && running.delete(listId));
  return result;
}

function listen(port: number, secret: string) {
  createServer(async (request, response) => {
    // At most MAX_BODY_BYTES: anyone can POST here, and a body is read whole before its signature is checked.
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.writeHead(413, { Connection: "close" }).end();
        return;
      }
      chunks.push(chunk);
    }
    const signature = request.headers["x-service-signature"] as string | undefined;
    const result = await verifyWebhook(Buffer.concat(chunks), signature, secret);
    if (!result.ok) {
      response.writeHead(400).end(result.reason);
      return;
    }
    const { type, data } = result.event as { type: string; data: { listId?: string; customerId?: string | null } };
    try {
      // Every list and item event names its list; a guest's (customerId null) is not the CRM's.
      if (data.listId && data.customerId) {
        const listId = data.listId;
        console.log(`${type} ${listId}: ${await oneAtATime(listId, () => syncList(listId))}`);
      }
      response.writeHead(204).end();
    } catch (error) {
      console.error(`${type} ${data.listId}: ${error}`);
      response.writeHead(503).end(); // the service delivers it again later
    }
  }).listen(port, () => console.log(`listening on http://localhost:${port}/webhooks`));
}

const command = process.argv[2];
if (command === "full") await fullSync();
else if (command === "listen") {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error("WEBHOOK_SECRET is not set: register the endpoint first (register-webhook.ts)");
  listen(Number(process.env.PORT ?? 4001), secret);
} else {
  console.error("usage: crm-sync.ts full | listen");
  process.exitCode = 2;
}
