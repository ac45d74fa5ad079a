import { createServer, type AddressInfo, type Socket } from "node:net";

/**
 * A TCP server that accepts connections and never answers: a database or Redis that hangs (overloaded,
 * black-holed by the network).
 *
 * It reads and drops what clients send. A socket that holds unread bytes never sees its client hang up
 * (the end of the stream waits behind the unread data), so the server could never finish closing. `close`
 * stops accepting and destroys every socket, including one the kernel had queued and hands over late (on a
 * busy machine, after the client had already given up).
 */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let closing = false;
  const server = createServer((socket) => {
    socket.on("error", () => undefined);
    if (closing) return socket.destroy();
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
