// Receives the service's webhooks on http://localhost:4000/webhooks and verifies each one.
// Run: npx tsx --env-file=.env receive-webhooks.ts
import { createServer } from "node:http";
import { verifyWebhook } from "@wishlist-service/sdk/webhooks";

const port = Number(process.env.PORT ?? 4000);
const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error("WEBHOOK_SECRET is not set: register the endpoint first (register-webhook.ts)");

createServer(async (request, response) => {
  // Verify the raw bytes as they came, before parsing anything.
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
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
