/**
 * Real local HTTP servers that misbehave in time, for the whole-response deadline (`--timeout`): one
 * that sends its headers and then trickles its body a byte at a time for ever, one that never answers,
 * one that cuts the connection mid-body. Every socket is destroyed by `closeSlowServers` (call it in
 * `afterEach`/`afterAll`), so that no test leaves the process busy.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SlowServer {
  url: string;
  /** `127.0.0.1:PORT`, as messages name it. */
  host: string;
  port: number;
  /** `METHOD /path` of every request received. */
  received: string[];
  /** Resolves once as many sockets as were opened have been closed (by the client or by us). */
  socketsClosed(): Promise<void>;
  /** Resolves once the first request has come in whole. */
  requested: Promise<void>;
}

export type Behaviour = 'trickle' | 'silent' | 'cut-mid-body';

const servers: { server: Server; sockets: Set<Socket> }[] = [];

/** How often the trickling server sends its next byte. */
export const TRICKLE_INTERVAL_MS = 50;

function respond(behaviour: Behaviour, res: ServerResponse): void {
  if (behaviour === 'silent') return; // headers never come
  res.writeHead(200, { 'content-type': 'application/json' });
  if (behaviour === 'cut-mid-body') {
    res.write('{"status":"ok","data":');
    res.socket?.destroy();
    return;
  }
  // A valid JSON prefix followed by whitespace, one byte at a time: never a complete body.
  res.write('{"status":"ok","data":{"groups":[');
  const timer = setInterval(() => res.write(' '), TRICKLE_INTERVAL_MS);
  res.on('close', () => clearInterval(timer));
}

export async function startSlowServer(behaviour: Behaviour): Promise<SlowServer> {
  const sockets = new Set<Socket>();
  const received: string[] = [];
  let opened = 0;
  let closed = 0;
  const waiting = new Set<() => void>();
  let arrived = () => {};
  const requested = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    received.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      arrived();
      respond(behaviour, res);
    });
  });
  server.on('connection', (socket: Socket) => {
    opened++;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      closed++;
      for (const check of waiting) check();
    });
  });
  servers.push({ server, sockets });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    port,
    received,
    requested,
    socketsClosed: () =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (opened > 0 && closed === opened) {
            waiting.delete(check);
            resolve();
          }
        };
        waiting.add(check);
        check();
      }),
  };
}

/** Destroys every socket of every server started so far, and closes the servers. */
export async function closeSlowServers(): Promise<void> {
  for (const { server, sockets } of servers.splice(0)) {
    for (const socket of sockets) socket.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
