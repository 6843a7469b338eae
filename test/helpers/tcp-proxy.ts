import { createServer, type Server, type Socket, connect } from "node:net";

// A TCP proxy to a database server that a test can cut and restore: a database outage for the Hone
// process behind it (connections refused, open ones reset) without stopping the shared server.

export type TcpProxy = {
  port: number;
  /** Resets every open connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again, on the same port. */
  restore(): Promise<void>;
  stop(): Promise<void>;
};

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server;
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => {});
        }
        client.pipe(upstream);
        upstream.pipe(client);
        client.on("close", () => upstream.destroy());
        upstream.on("close", () => client.destroy());
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve((server.address() as { port: number }).port));
    });
  const port = await listen(0);
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.resetAndDestroy();
      sockets.clear();
      server.close(() => resolve());
    });
  return {
    port,
    cut: close,
    restore: async () => {
      await listen(port);
    },
    stop: close,
  };
}
