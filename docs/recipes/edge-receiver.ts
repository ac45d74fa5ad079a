// A webhook receiver for an edge runtime: a fetch(request) handler on Web Crypto, in the module form of
// Cloudflare Workers. The same receiveWebhook runs in any runtime that hands you a Request.
import { verifyWebhook, type WebhookEvent } from "@wishlist-service/sdk/webhooks";

/** What the worker is given: the endpoint's secret and a key-value store of the event ids taken. */
export interface Env {
  WEBHOOK_SECRET: string;
  SEEN: {
    get(key: string): Promise<string | null>;
    put(key: string, value: string, options?: { expirationTtl?: number }): Promise<void>;
  };
}

/** Keeps work running after the response (Cloudflare's ctx.waitUntil, Vercel's waitUntil). */
export interface Context {
  waitUntil(promise: Promise<unknown>): void;
}

const THIRTY_DAYS_SECONDS = 30 * 24 * 60 * 60; // the service keeps events, and can redeliver them, that long
const MAX_BODY_BYTES = 1024 * 1024; // a delivery is a few KB

/**
 * The raw bytes, as sent, or null past MAX_BODY_BYTES. Read piece by piece: anyone can POST here, and
 * request.arrayBuffer() would hold a body of any size whole (with or without a Content-Length) before the
 * signature could refuse it.
 */
async function readBody(request: Request): Promise<Uint8Array | null> {
  if (Number(request.headers.get("Content-Length") ?? 0) > MAX_BODY_BYTES) return null;
  const reader = request.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader?.read(); read && !read.done; read = await reader!.read()) {
    size += read.value.length;
    if (size > MAX_BODY_BYTES) {
      await reader!.cancel();
      return null;
    }
    chunks.push(read.value);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

// Your work, after the answer.
async function handle(event: WebhookEvent) {
  console.log(`handled ${event.type} ${event.id}`);
}

export async function receiveWebhook(request: Request, env: Env, context: Context): Promise<Response> {
  if (request.method !== "POST" || new URL(request.url).pathname !== "/webhooks") {
    return new Response(null, { status: 404 });
  }
  // The raw bytes, as sent: the signature covers them, not a re-serialised parse.
  const body = await readBody(request);
  if (!body) return new Response(null, { status: 413 });
  const result = await verifyWebhook(body, request.headers.get("X-Service-Signature"), env.WEBHOOK_SECRET);
  if (!result.ok) {
    console.log(`refused: ${result.reason}`);
    return new Response(null, { status: 400 });
  }
  const { event } = result;
  // A KV store is eventually consistent: two deliveries of one event in the same second may both pass.
  // Where that matters, take the id in a Durable Object or a database with a unique index instead.
  if ((await env.SEEN.get(event.id)) !== null) {
    console.log(`duplicate ${event.id}`);
    return new Response(null, { status: 200 });
  }
  await env.SEEN.put(event.id, "1", { expirationTtl: THIRTY_DAYS_SECONDS });
  console.log(`accepted ${event.type} ${event.id}`);
  context.waitUntil(handle(event).catch((error) => console.error(`${event.id} failed: ${error}`)));
  return new Response(null, { status: 204 });
}

// Cloudflare Workers calls the default export's fetch.
export default { fetch: receiveWebhook };
