// Runs edge-receiver.ts on this machine, in Node, calling it as an edge runtime does: a Request in, a
// Response out. Run: npx tsx --env-file=.env --env-file=edge-receiver.env serve-edge.ts
import { serve } from "@hono/node-server";
import worker, { type Env } from "./edge-receiver";

const secret = process.env.WEBHOOK_SECRET;
if (!secret) throw new Error("WEBHOOK_SECRET is not set: register the endpoint first (register-webhook.ts)");

// An in-memory stand-in for the KV namespace.
const ids = new Map<string, string>();
const env: Env = {
  WEBHOOK_SECRET: secret,
  SEEN: {
    get: async (key) => ids.get(key) ?? null,
    put: async (key, value) => void ids.set(key, value),
  },
};

serve(
  {
    port: Number(process.env.PORT ?? 4003),
    fetch: (request) => worker.fetch(request, env, { waitUntil: (promise) => void promise }),
  },
  (info) => console.log(`receiving on http://localhost:${info.port}/webhooks`),
);
