import { defineConfig } from "vite";
import { readSettings } from "./server/settings";
import { storefrontConfig } from "./server/vite";

// `npm run example` (the dev server on http://localhost:5173), `vite build` and `vite preview` alike; the settings
// come from the environment or from the demo shop's file that `npm run dev` writes (server/settings.ts).
export default defineConfig(() => storefrontConfig(readSettings()));
