// A webhook receiver for a Node server: the raw body, verified; each event taken once (by its id); the 2xx
// answer before the work. Run: npx tsx --env-file=.env --env-file=node-receiver.env node-receiver.ts
import { createServer } from "node:http";
import { verifyWebhook, type WebhookEvent } from "@wishlist-service/sdk/webhooks";

const port = Number(process.env.PORT ?? 4002);
const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error("WEBHOOK_SECRET is not set: register the endpoint first (register-webhook.ts)");
const MAX_BODY_BYTES = 1024 * 1024; // a delivery is a few KB

// Ids of the events taken. A retry or a redelivery carries the same id. In production: a table with a unique
// index on the id, kept 30 days (the service keeps events, and can redeliver them, that long).
const seen = new Set<string>();

// Your work. It runs after the answer: the service waits 10 s at most, then counts the attempt as failed.
// In production, put the event on a durable queue first (a table, BullMQ, SQS): nothing is sent again after
// a 2xx, so work lost in a crash is lost.
async function handle(event: WebhookEvent) {
  console.log(`handled ${event.type} ${event.id}`);
}

createServer(async (request, response) => {
  if (request.method !== "POST" || request.url !== "/webhooks") {
    response.writeHead(404).end();
    return;
  }
  // The raw bytes, as sent: the signature covers them, not a re-serialised parse.
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
    console.log(`refused: ${result.reason}`);
    response.writeHead(400).end();
    return;
  }
  const { event } = result;
  if (seen.has(event.id)) {
    console.log(`duplicate ${event.id}`);
    response.writeHead(200).end(); // acknowledged, and not done twice
    return;
  }
  seen.add(event.id);
  response.writeHead(204).end();
  console.log(`accepted ${event.type} ${event.id}`);
  handle(event).catch((error) => console.error(`${event.id} failed: ${error}`));
}).listen(port, () => console.log(`receiving on http://localhost:${port}/webhooks`));
