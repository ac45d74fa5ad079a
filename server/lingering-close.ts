import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * A lingering close for answers sent before their request body was read: a 413 from the declared
 * `Content-Length`, a 413 part-way through a chunked body, a 401 or a 404 that never looks at the body
 * (review finding 20). Many clients send the whole body before they read a byte of the answer; if the
 * server closes while they are still sending, the kernel answers their next segments with a reset, and
 * the reset throws away the answer they had not read yet. So the rest of the body is read and discarded,
 * as nginx's `lingering_close` does, within bounds: the client may keep the connection for at most
 * {@link LINGER_MS} in all, with at most {@link LINGER_IDLE_MS} between two pieces, and send at most
 * {@link LINGER_BYTES}. Past a bound the connection is half-closed (FIN, so what was sent arrives) and
 * destroyed a moment later. A body that ends within the bounds leaves the connection open for the next
 * request, as keep-alive expects.
 *
 * The server adapter's own clean-up (`autoCleanupIncoming` of @hono/node-server) reads for only 500 ms and
 * then destroys the socket, which is what reset the clients: it is turned off where this is installed.
 */
export const LINGER_MS = 30_000;
export const LINGER_IDLE_MS = 5_000;
export const LINGER_BYTES = 64 * 1024 * 1024;
/** After the half-close, how long the client has to close its side before the socket is destroyed. */
const CLOSE_GRACE_MS = 2_000;

export function lingerAfterEarlyAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === "GET" || req.method === "HEAD") return;
  res.once("finish", () => {
    if (req.complete || req.destroyed) return;
    const socket = req.socket;
    let bytes = 0;
    const cleanup = () => {
      clearTimeout(total);
      clearTimeout(idle);
      req.off("data", onData);
      req.off("end", cleanup);
      req.off("error", cleanup);
    };
    const close = () => {
      cleanup();
      if (socket.destroyed) return;
      req.pause(); // read no more: the client's next segments wait in its own buffers
      socket.end();
      setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
    };
    const total = setTimeout(close, LINGER_MS).unref();
    let idle = setTimeout(close, LINGER_IDLE_MS).unref();
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > LINGER_BYTES) return close();
      clearTimeout(idle);
      idle = setTimeout(close, LINGER_IDLE_MS).unref();
    };
    // Whoever was reading the body (the Fetch adapter's stream, which pauses the request when its own
    // queue is full and nobody reads it any more) is done with it: as Node's own `req._dump()` does, the
    // request's other readers are dropped so that nothing pauses it again.
    req.removeAllListeners("data");
    req.on("data", onData);
    req.once("end", cleanup);
    req.once("error", cleanup);
    req.resume();
  });
}
