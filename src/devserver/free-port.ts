// A free TCP port on loopback, for the dev server's extra listeners. `temporal server start-dev`
// otherwise puts its HTTP API on port + 1000, which can be an ephemeral port already taken by an
// outgoing connection on a busy machine ("bind: address already in use").
import { createServer, type AddressInfo } from 'node:net';

export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
