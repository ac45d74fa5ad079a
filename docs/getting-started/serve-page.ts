// Serves a page on http://localhost:5173 that runs page.ts in the browser, bundled by esbuild with the
// shop's public key. Run: npx tsx --env-file=.env serve-page.ts
import { createServer } from "node:http";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const port = Number(process.env.PORT ?? 5173);
const bundle = await build({
  entryPoints: [fileURLToPath(new URL("page.ts", import.meta.url))],
  bundle: true,
  format: "esm",
  platform: "browser",
  write: false,
  // What page.ts reads as WISHLIST. Never the private key: everything here reaches the browser.
  define: {
    WISHLIST: JSON.stringify({
      url: process.env.WISHLIST_URL,
      shop: process.env.WISHLIST_SHOP,
      publicKey: process.env.WISHLIST_PUBLIC_KEY,
    }),
  },
});
const script = bundle.outputFiles[0]!.text;
const html = `<!doctype html>
<meta charset="utf-8" />
<title>Wishlist quickstart</title>
<h1>Meadow Sun Hat</h1>
<button>Save to wishlist</button>
<h2>Your wishlist</h2>
<ul></ul>
<p role="status"></p>
<script type="module" src="/page.js"></script>
`;

createServer((request, response) => {
  if (request.url === "/page.js") {
    response.writeHead(200, { "Content-Type": "text/javascript" }).end(script);
  } else {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(html);
  }
}).listen(port, () => console.log(`open http://localhost:${port}`));
