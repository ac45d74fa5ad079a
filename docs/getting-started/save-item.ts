// Saves a product to a customer's wishlist with the shop's private key, then reads the wishlist back.
// Run: npx tsx --env-file=.env save-item.ts [productId handle]
import { createWishlistClient } from "@wishlist-service/sdk";

// The private key acts for the whole shop: use it on a server, never in a browser.
const wishlist = createWishlistClient({
  baseUrl: process.env.WISHLIST_URL!,
  privateKey: process.env.WISHLIST_PRIVATE_KEY!,
});

const customerId = "7001"; // Ada Lovelace, a customer of the demo shop
const [productId = "8100000010", handle = "willow-silk-dress"] = process.argv.slice(2);

// 201: saved now. 200: the customer had saved it before (nothing changes).
const { data: item, response } = await wishlist.POST("/storefront/wishlist/items", {
  params: { query: { customerId } },
  body: { productId, handle },
});
console.log(`${response.status === 201 ? "saved" : "already saved"}: ${item.id} ${item.productId} ${item.handle}`);

const { data: list } = await wishlist.GET("/storefront/wishlist", { params: { query: { customerId } } });
console.log(`customer ${customerId}, list ${list.id}, ${list.count} saved:`);
for (const saved of list.items) console.log(`- ${saved.productId} ${saved.handle} (added ${saved.addedAt})`);
