import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  headers: IncomingHttpHeaders;
  /** The raw bytes, as sent. */
  body: Buffer;
  at: number;
}

/**
 * A real HTTP receiver on loopback. `respond` may answer itself; if it does not (and does not return
 * "hold", to leave the request hanging), the answer is 200 "ok".
 */
export async function startReceiver(
  respond: (request: Received, index: number, res: ServerResponse) => void | "hold" = () => {},
) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks), at: Date.now() };
      received.push(entry);
      const outcome = respond(entry, received.length - 1, res);
      if (outcome !== "hold" && !res.headersSent) res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}/hooks`,
    received,
    async waitFor(count: number, timeoutMs = 90_000) {
      const started = Date.now();
      while (received.length < count) {
        if (Date.now() - started > timeoutMs) {
          throw new Error(`receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
