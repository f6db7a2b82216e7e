/**
 * A loopback proxy in front of a firewall, for tests that must see or change what passes between
 * wafctl and the API: each request is read whole and offered to `intercept`, which may answer it
 * itself (a lie, a refusal) or let it through (`undefined`); what it lets through is sent on to the
 * firewall and its answer passed back.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An answer: its status, content type and body. */
export interface ProxyAnswer {
  status: number;
  type: string;
  body: string;
}

/** A request as the proxy read it, and how to send it on. */
export interface ProxiedRequest {
  method: string;
  /** The path and query, as requested. */
  url: string;
  /** The path without the query. */
  path: string;
  body: string;
  /** Sends the request on to the firewall and gives its answer. */
  forward(): Promise<ProxyAnswer>;
  /** Resolves once the connection closes: for a request not answered yet, the client gave up on it. */
  closed: Promise<void>;
}

export type Intercept = (
  request: ProxiedRequest,
) => ProxyAnswer | undefined | Promise<ProxyAnswer | undefined>;

export interface TestProxy {
  url: string;
  close(): Promise<void>;
}

/** Headers that belong to one connection, not to the request sent on. */
const HOP_HEADERS = new Set(['host', 'content-length', 'connection']);

async function bodyOf(request: IncomingMessage): Promise<string> {
  let body = '';
  request.setEncoding('utf8');
  for await (const chunk of request) body += chunk;
  return body;
}

async function forward(target: string, request: IncomingMessage, body: string): Promise<ProxyAnswer> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string' && !HOP_HEADERS.has(name)) headers[name] = value;
  }
  const answer = await fetch(`${target}${request.url ?? '/'}`, {
    method: request.method ?? 'GET',
    headers,
    ...(body === '' ? {} : { body }),
  });
  return {
    status: answer.status,
    type: answer.headers.get('content-type') ?? 'application/json',
    body: await answer.text(),
  };
}

/** A proxy in front of `target` (a base URL), on a free loopback port. */
export async function startProxy(target: string, intercept: Intercept = () => undefined): Promise<TestProxy> {
  const server = createServer(async (request, response) => {
    const closed = new Promise<void>((resolve) => response.once('close', () => resolve()));
    try {
      const body = await bodyOf(request);
      const url = request.url ?? '/';
      const proxied: ProxiedRequest = {
        method: request.method ?? 'GET',
        url,
        path: url.split('?')[0] ?? url,
        body,
        forward: () => forward(target, request, body),
        closed,
      };
      const answer = (await intercept(proxied)) ?? (await proxied.forward());
      response.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body);
    } catch {
      // A request still in flight when a failed test closes the firewall: no unhandled rejection.
      response.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
