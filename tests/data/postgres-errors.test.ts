import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresPool, isPostgresPoolExhausted, isPostgresUnavailable } from "~/data/postgres.server";
import { until } from "../support/poll";
import { startSilentServer } from "../support/silent-server";

/** Which failures the API answers as "the database cannot be reached" (503 service-unavailable). */
describe("isPostgresUnavailable", () => {
  const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

  it("takes a refused connection, a terminated one and a server shutting down for the database being away", () => {
    expect(isPostgresUnavailable(refused())).toBe(true);
    expect(isPostgresUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isPostgresUnavailable(Object.assign(new Error("terminating connection"), { code: "57P01" }))).toBe(true);
    expect(isPostgresUnavailable(new Error("query failed", { cause: refused() }))).toBe(true);
  });

  it("does not take the object store's connection failure (an AWS SDK error) for the database's", () => {
    const s3 = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
      code: "ECONNREFUSED",
      $metadata: { attempts: 3 },
    });
    expect(isPostgresUnavailable(s3)).toBe(false);
    expect(isPostgresUnavailable(new Error("upload failed", { cause: s3 }))).toBe(false);
    expect(isPostgresUnavailable(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
  });
});

/**
 * A connection reset is the database's when the driver raised it, and the client's (a body that ended
 * early, a 400) otherwise: a PostgreSQL server stopped mid-handshake resets the socket without a word.
 */
describe("a connection reset (ECONNRESET)", () => {
  const sockets = new Set<Socket>();
  let proxy: Server;
  let port: number;
  let mode: "forward" | "reset" = "forward";

  beforeAll(async () => {
    // In front of the machine's PostgreSQL: forwards each connection, or resets it on arrival.
    proxy = createServer((client) => {
      if (mode === "reset") return client.resetAndDestroy();
      const upstream = connect(5432, "127.0.0.1");
      client.pipe(upstream).pipe(client);
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
      sockets.add(client);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    port = (proxy.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => proxy.close(resolve)));

  it("from the driver, on connecting or mid-statement, is the database being away (503)", async () => {
    const pool = createPostgresPool(`postgresql://postgres@127.0.0.1:${port}/postgres`);
    try {
      mode = "reset";
      const refused = await pool.connect().then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: "ECONNRESET" });
      expect(isPostgresUnavailable(refused)).toBe(true);

      mode = "forward";
      const client = await pool.connect();
      try {
        const statement = client.query("SELECT pg_sleep(30)").then(
          () => null,
          (error: unknown) => error,
        );
        // Reset once the statement runs on the server (a reset before it arrives fails it the same way).
        await until(
          async () =>
            (
              await pool.query<{ n: number }>(
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query = 'SELECT pg_sleep(30)'",
              )
            ).rows[0]!.n,
          (running) => running === 1,
          "the statement running on the server",
        );
        for (const socket of sockets) socket.resetAndDestroy();
        const failed = await statement;
        expect(failed).toBeInstanceOf(Error);
        expect(isPostgresUnavailable(failed)).toBe(true);
      } finally {
        client.release(true);
      }
    } finally {
      await pool.end();
    }
  });

  it("from anywhere else (a request body's socket) is not the database's", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    expect(isPostgresUnavailable(reset)).toBe(false);
    expect(isPostgresUnavailable(new Error("body failed", { cause: reset }))).toBe(false);
  });
});

/**
 * A server that accepts connections and never answers: the pool fills with connections still being made,
 * and the connects queued behind them time out with the same message as a pool whose connections are all
 * in use. That is the database not answering, not the process being busy.
 */
describe("a PostgreSQL that accepts and never answers", () => {
  it("is the database being away for every connect, never 'busy'", async () => {
    const silent = await startSilentServer();
    const pool = createPostgresPool(`postgresql://postgres@127.0.0.1:${silent.port}/postgres`);
    try {
      // More connects than the pool may open: the rest wait in its queue and time out there.
      const errors = await Promise.all(
        Array.from({ length: (pool.options.max ?? 10) + 3 }, () =>
          pool.connect().then(
            () => null,
            (error: unknown) => error,
          ),
        ),
      );
      const messages = errors.map((error) => (error as Error).message);
      expect(messages).toContain("timeout exceeded when trying to connect");
      expect(errors.map(isPostgresUnavailable)).toEqual(errors.map(() => true));
      expect(errors.map(isPostgresPoolExhausted)).toEqual(errors.map(() => false));
    } finally {
      await pool.end();
      await silent.close();
    }
  });
});
