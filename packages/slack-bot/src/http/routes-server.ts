import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { CustomRoute } from '@slack/bolt';
import { refuseLargeBodies } from './body-limit.js';

/**
 * Socket Mode's health, metrics and audit routes on HOST:PORT. Bolt's SocketModeReceiver would serve them
 * itself, but on every interface whatever HOST says; this server listens where it is told.
 */
export async function serveRoutes(
  routes: CustomRoute[],
  where: { port: number; host: string },
): Promise<Server> {
  const handlers = new Map<string, CustomRoute['handler']>();
  for (const route of routes) {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) handlers.set(`${method.toUpperCase()} ${route.path}`, route.handler);
  }
  const server = createServer(
    refuseLargeBodies((req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      const handler = handlers.get(`${req.method ?? 'GET'} ${path}`);
      if (!handler) {
        res.writeHead(404);
        res.end();
        return;
      }
      handler(Object.assign(req, { params: {} }), res);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(where.port, where.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}

/** Where a listening server is reached from this machine (a wildcard address by its loopback). */
export function urlOf(server: Server, host: string): string | undefined {
  const address = server.address();
  if (address === null || typeof address !== 'object') return undefined;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${address.port}`;
}
