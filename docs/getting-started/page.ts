// The browser side: a guest saves a product with the shop's public key and sees their wishlist.
// serve-page.ts bundles this file and serves it.
import { createWishlistClient } from "@wishlist-service/sdk";

// Set by serve-page.ts when it bundles this file. The public key may be read by anyone: it opens the
// storefront operations only, and only from the shop's headlessOrigins.
declare const WISHLIST: { url: string; shop: string; publicKey: string };

const wishlist = createWishlistClient({ baseUrl: WISHLIST.url, publicKey: WISHLIST.publicKey, shop: WISHLIST.shop });

// A guest is known by an anonymous id that the page makes once and keeps in the browser.
const aid = localStorage.getItem("wishlist-aid") ?? crypto.randomUUID();
localStorage.setItem("wishlist-aid", aid);

const button = document.querySelector("button")!;
const list = document.querySelector("ul")!;
const status = document.querySelector("p")!;

async function showWishlist() {
  const { data } = await wishlist.GET("/storefront/wishlist", { params: { query: { aid } } });
  list.replaceChildren(
    ...data.items.map((item) => Object.assign(document.createElement("li"), { textContent: item.handle })),
  );
  status.textContent = `${data.count} saved`;
}

button.addEventListener("click", () => {
  wishlist
    .POST("/storefront/wishlist/items", {
      params: { query: { aid } },
      body: { productId: "8100000003", handle: "meadow-sun-hat" },
    })
    .then(showWishlist)
    .catch((error: Error) => (status.textContent = error.message));
});

showWishlist().catch((error: Error) => (status.textContent = error.message));
