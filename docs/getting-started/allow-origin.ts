// Lets a browser page at this origin call the API with the shop's public key (CORS), keeping the origins
// already allowed. Run: npx tsx --env-file=.env allow-origin.ts [origin]
import { createWishlistClient } from "@wishlist-service/sdk";

const origin = process.argv[2] ?? "http://localhost:5173";
const wishlist = createWishlistClient({
  baseUrl: process.env.WISHLIST_URL!,
  privateKey: process.env.WISHLIST_PRIVATE_KEY!,
});

const { data: shop } = await wishlist.GET("/shop");
// PATCH replaces the whole array: send the origins already there too.
const headlessOrigins = [...new Set([...shop.settings.headlessOrigins, origin])];
const { data: settings } = await wishlist.PATCH("/shop/settings", { body: { headlessOrigins } });
console.log(`headlessOrigins: ${settings.headlessOrigins.join(", ")}`);
