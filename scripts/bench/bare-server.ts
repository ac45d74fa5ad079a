/**
 * What the bare reference servers of the benchmarks share: no framework, just `node:http` and the driver.
 * Kept to plumbing (placeholders, the body, the answer, a PostgreSQL transaction) so that each reference
 * still reads as the work it does per request.
 */
import { createServer, type IncomingMessage } from "node:http";
import type pg from "pg";

/** `?` placeholders as pg's `$1, $2, ...`. */
export function numbered(text: string): string {
  let index = 0;
  return text.replace(/\?/g, () => `$${++index}`);
}

export async function readBody(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request) body += chunk;
  return body;
}

/** Runs `work` in one transaction on one pooled connection: BEGIN, then COMMIT, or ROLLBACK on an error. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK");
    throw error;
  } finally {
    client.release();
  }
}

/** Serves `answer`'s [status, body] as JSON (no body: an empty answer) on 127.0.0.1:`port`. */
export function serveJson(port: number, answer: (request: IncomingMessage) => Promise<[number, unknown]>) {
  createServer((request, response) => {
    answer(request).then(
      ([status, body]) => {
        if (body === null) return void response.writeHead(status).end();
        const json = JSON.stringify(body);
        response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
        response.end(json);
      },
      (error: unknown) => response.writeHead(500).end(String(error)),
    );
  }).listen(port, "127.0.0.1");
}
