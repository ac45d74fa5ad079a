# Writes .env from the demo shop's file. SERVICE is the service's clone, as set in step 2.
node -e '
const demo = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
console.log(`WISHLIST_URL=${new URL(demo.apiBaseUrl).origin}`);
console.log(`WISHLIST_SHOP=${demo.shopDomain}`);
console.log(`WISHLIST_PRIVATE_KEY=${demo.privateKey}`);
console.log(`WISHLIST_PUBLIC_KEY=${demo.publicKey}`);
' "$SERVICE/.data/demo-shop.json" > .env
