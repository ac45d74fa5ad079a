/** The soak's webhook receivers on loopback: steady, flaky (fails some attempts) and slow. */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export const MAX_FAILURES_PER_EVENT = 3;
export const RETRY_UNIT_MS = 200;

export type Behaviour = "steady" | "flaky" | "slow";

export interface Receiver {
  name: string;
  behaviour: Behaviour;
  url: string;
  secret: string;
  attempts: number;
  failuresInjected: number;
  badSignatures: number;
  /** Event id -> how many attempts were answered 2xx. */
  delivered: Map<string, number>;
  failed: Map<string, number>;
  server: Server;
}

export function signatureValid(secret: string, header: string | undefined, body: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? "");
  if (!match || !secret) return false;
  const expected = createHmac("sha256", secret).update(`${match[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2]!, "hex"));
}

export async function startReceiver(name: string, behaviour: Behaviour): Promise<Receiver> {
  const receiver = { name, behaviour, secret: "", attempts: 0, failuresInjected: 0, badSignatures: 0 } as Receiver;
  receiver.delivered = new Map();
  receiver.failed = new Map();
  receiver.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      receiver.attempts++;
      const body = Buffer.concat(chunks).toString("utf8");
      if (!signatureValid(receiver.secret, req.headers["x-service-signature"] as string | undefined, body)) {
        receiver.badSignatures++;
      }
      const id = /"id":"(evt_[A-Za-z0-9]+)"/.exec(body)?.[1] ?? "unknown";
      const answer = () => {
        receiver.delivered.set(id, (receiver.delivered.get(id) ?? 0) + 1);
        res.writeHead(204).end();
      };
      if (behaviour === "flaky") {
        const failedSoFar = receiver.failed.get(id) ?? 0;
        if (failedSoFar < MAX_FAILURES_PER_EVENT && Math.random() < 0.1) {
          receiver.failed.set(id, failedSoFar + 1);
          receiver.failuresInjected++;
          return void res.writeHead(500, { "content-type": "text/plain" }).end("injected failure");
        }
      }
      if (behaviour === "slow") return void setTimeout(answer, 1_000 + Math.random() * 1_000);
      answer();
    });
  });
  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hooks/${name}`;
  return receiver;
}
