import { defineConfig } from "tsup";

// ESM with bundled declarations; openapi-fetch and react stay dependencies of the user's bundle.
export default defineConfig({
  entry: { index: "src/index.ts", react: "src/react.tsx", webhooks: "src/webhooks.ts" },
  format: ["esm"],
  dts: true,
  clean: true,
  target: "es2022",
  platform: "neutral",
  external: ["openapi-fetch", "react"],
  sourcemap: false,
  treeshake: true,
});
