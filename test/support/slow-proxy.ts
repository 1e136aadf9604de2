import type { AddressInfo } from 'node:net';
import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (DynamoDB Local, s3rver) that holds each chunk of the
 * server's answer for `delayMs`, in order: the server as a loaded machine makes it, slow but answering.
 * `close()` ends exactly the sockets it opened.
 */
export async function startSlowProxy(
  target: string,
  delayMs: number,
): Promise<{ endpoint: string; close: () => Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    track(client);
    track(upstream);
    client.on('data', (chunk) => upstream.write(chunk));
    // Every chunk waits the same time, so they leave in the order they came.
    upstream.on('data', (chunk) => {
      setTimeout(() => client.writable && client.write(chunk), delayMs);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => setTimeout(() => client.destroy(), delayMs));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
