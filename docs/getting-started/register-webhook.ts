// Registers a webhook endpoint. Prints its secret as a line for .env on stdout, the rest on stderr.
// Run: npx tsx --env-file=.env register-webhook.ts [url [event ...]] >> .env
import { createWishlistClient, type components } from "@wishlist-service/sdk";

type EventType = components["schemas"]["WebhookEndpoint"]["events"][number];

const [url = "http://localhost:4000/webhooks", ...events] = process.argv.slice(2);
const wishlist = createWishlistClient({
  baseUrl: process.env.WISHLIST_URL!,
  privateKey: process.env.WISHLIST_PRIVATE_KEY!,
});

const { data: endpoint } = await wishlist.POST("/webhooks", {
  body: { url, events: events.length > 0 ? (events as EventType[]) : ["item.added", "item.removed"] },
});
console.error(`endpoint ${endpoint.id} receives ${endpoint.events.join(", ")} at ${endpoint.url}`);
// The secret is shown in this answer only: keep it, every delivery is verified with it.
console.log(`WEBHOOK_SECRET=${endpoint.secret}`);
