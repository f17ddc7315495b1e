import type { AddressInfo } from "node:net";
import { connect, createServer, type Socket } from "node:net";

/** A TCP proxy in front of a server, so a test can cut every open connection (a dropped network). */
export interface TcpProxy {
  url: string;
  /** Destroys every connection open now; new ones go through again. */
  dropAll(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetPort: () => number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect({ host: "127.0.0.1", port: targetPort() });
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => {
        inbound.destroy();
        outbound.destroy();
      });
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const dropAll = () => {
    for (const socket of sockets) socket.destroy();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    dropAll,
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}
