// Receives the service's webhooks on http://localhost:4000/webhooks and verifies each one.
// Run: npx tsx --env-file=.env receive-webhooks.ts
import { createServer } from "node:http";
import { verifyWebhook } from "@wishlist-service/sdk/webhooks";

const port = Number(process.env.PORT ?? 4000);
const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error("WEBHOOK_SECRET is not set: register the endpoint first (register-webhook.ts)");
const MAX_BODY_BYTES = 1024 * 1024; // a delivery is a few KB

createServer(async (request, response) => {
  // Verify the raw bytes as they came, before parsing anything. At most MAX_BODY_BYTES: anyone can POST here,
  // and a body is read whole before its signature is checked.
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
  const { id, type, data } = result.event;
  console.log(`verified ${type} ${id}: ${JSON.stringify(data)}`);
  response.writeHead(204).end(); // any 2xx tells the service the delivery arrived
}).listen(port, () => console.log(`receiving on http://localhost:${port}/webhooks`));
