import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * A lingering close for answers sent before their request body was read: a 413 from the declared
 * `Content-Length`, a 413 part-way through a chunked body, a 401 or a 404 that never looks at the body
 * (review finding 20). Many clients send the whole body before they read a byte of the answer; if the
 * server closes while they are still sending, the kernel answers their next segments with a reset, and
 * the reset throws away the answer they had not read yet. So the rest of the body is read and discarded,
 * as nginx's `lingering_close` does, within bounds: the client may keep the connection for at most
 * {@link LINGER_MS} in all, with at most {@link LINGER_IDLE_MS} between two pieces, and send at most
 * {@link LINGER_BYTES} (checked every {@link WATCH_EVERY_MS}, so a fast client may pass it by what it sends
 * in that time). Past a bound the connection is destroyed. A body that ends within the bounds leaves the
 * connection open for the next request, as keep-alive expects.
 *
 * The server adapter's own clean-up (`autoCleanupIncoming` of @hono/node-server) reads for only 500 ms and
 * then destroys the socket, which is what reset the clients: it is turned off where this is installed.
 */
export const LINGER_MS = 30_000;
export const LINGER_IDLE_MS = 5_000;
export const LINGER_BYTES = 64 * 1024 * 1024;
/** How often the bounds are checked. */
const WATCH_EVERY_MS = 100;

export function lingerAfterEarlyAnswer(req: IncomingMessage, res: ServerResponse): void {
  // Every method: a GET or HEAD may carry a body too, and nothing else bounds what follows its answer.
  res.once("finish", () => {
    if (req.complete || req.destroyed) return;
    const socket = req.socket;
    // Counted from the socket's own tally: Node's parser reads the connection directly, and a body nobody
    // read is dumped (`req._dump()`) before it reaches the request's stream, so no event sees those bytes.
    const firstByte = socket.bytesRead;
    const started = Date.now();
    let seen = firstByte;
    let seenAt = started;
    const watch = setInterval(() => {
      const now = Date.now();
      if (socket.bytesRead !== seen) [seen, seenAt] = [socket.bytesRead, now];
      const over = seen - firstByte > LINGER_BYTES || now - seenAt > LINGER_IDLE_MS || now - started > LINGER_MS;
      // Past a bound the client is not one reading an answer: the connection ends at once.
      if (over) {
        cleanup();
        socket.destroy();
      }
    }, WATCH_EVERY_MS).unref();
    const cleanup = () => {
      clearInterval(watch);
      req.off("end", cleanup);
      req.off("error", cleanup);
    };
    req.once("end", cleanup);
    req.once("error", cleanup);
    // Whoever was reading the body (the Fetch adapter's stream, which pauses the request when its own
    // queue is full and nobody reads it any more) is done with it: as Node's own `req._dump()` does, the
    // request's other readers are dropped and the rest flows to nowhere.
    req.removeAllListeners("data");
    req.resume();
  });
}
