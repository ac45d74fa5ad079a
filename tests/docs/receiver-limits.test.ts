/**
 * The guide's and the recipes' webhook receivers (docs/getting-started, docs/recipes) as anyone on the internet
 * meets them: an endpoint that must read a body before it can check its signature. A body far past what a
 * delivery needs is refused after 1 MB, with or without a Content-Length, and the receiver goes on serving.
 */
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { startExample } from "../support/examples";
import { freePort } from "../support/processes";

/** Far past the receivers' 1 MB, and past what the sockets between here and the receiver buffer. */
const FLOOD_BYTES = 32 * 1024 * 1024;

/**
 * POSTs `bytes` of blanks, unsigned, as fast as the receiver takes them: its answer's status, or `closed` when it
 * hung up while the body was still coming, and how many bytes went out by then.
 */
function flood(url: string, bytes: number, { chunked }: { chunked: boolean }) {
  return new Promise<{ outcome: number | "closed"; sent: number }>((resolve) => {
    const headers = { "Content-Type": "application/json", ...(chunked ? {} : { "Content-Length": String(bytes) }) };
    const request = httpRequest(url, { method: "POST", headers });
    const chunk = Buffer.alloc(64 * 1024, " ");
    let sent = 0;
    let done = false;
    const finish = (outcome: number | "closed") => {
      if (done) return;
      done = true;
      request.destroy();
      resolve({ outcome, sent });
    };
    request.on("response", (response) => {
      response.resume();
      finish(response.statusCode!);
    });
    request.on("error", () => finish("closed"));
    const write = () => {
      while (!done && sent < bytes) {
        sent += chunk.length;
        if (!request.write(chunk)) return void request.once("drain", write);
      }
      if (!done) request.end();
    };
    write();
  });
}

const UNUSED_API = { WISHLIST_URL: "http://127.0.0.1:9", WISHLIST_PRIVATE_KEY: "svc_sk_unused" };

describe.each([
  ["the guide's receiver", "getting-started/receive-webhooks.ts", [], /receiving on/],
  ["the Node receiver", "recipes/node-receiver.ts", [], /receiving on/],
  ["the edge handler", "recipes/serve-edge.ts", [], /receiving on/],
  ["the CRM sync's listener", "recipes/crm-sync.ts", ["listen"], /listening on/],
])("%s", (_name, file, args, ready) => {
  it("refuses a body past 1 MB while it is still coming, and goes on serving", async () => {
    // GIVEN the receiver, as its run line starts it
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhooks`;
    const receiver = startExample(file, { ...UNUSED_API, WEBHOOK_SECRET: "whsec_unused", PORT: String(port) }, args);
    try {
      await receiver.waitForOutput(ready);
      for (const chunked of [false, true]) {
        // WHEN an unsigned body of 32 MB comes, with a Content-Length and then without (chunked)
        const { outcome, sent } = await flood(url, FLOOD_BYTES, { chunked });
        // THEN it is refused (413, or the connection closed) before it has all been sent, not read whole first
        expect(outcome, chunked ? "chunked" : "with a Content-Length").toBeOneOf([413, "closed"]);
        expect(sent).toBeLessThan(FLOOD_BYTES);
      }
      // AND a delivery of ordinary size is still read and checked (refused here: it is unsigned)
      const small = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      expect(small.status).toBe(400);
    } finally {
      await receiver.stop();
    }
  });
});
