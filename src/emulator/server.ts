/**
 * The request pipeline. Order matters and is the same for every API request:
 * stats -> latency -> fault before work (503/429) -> route (404/405) -> auth (403) -> media type (415)
 * -> body (413, malformed JSON 400) -> handler (200/400), answered once durable (persistence/commit.ts;
 * 500 and rolled back when it cannot be saved) -> fault after work (500/reset; for writes also a
 * garbled 200: HTML, truncated JSON, status "error").
 * `/__emulator/*` (stats) skips all of it: no auth, no latency, no faults, not counted.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { type Authenticator, isAllowed } from './auth.js';
import { type FaultInjector, type FaultKind, isWriteMethod } from './faults.js';
import {
  errorAnswer,
  type HttpAnswer,
  mediaType,
  parseJsonBody,
  readBody,
  sendBytes,
  sendJson,
} from './http.js';
import type { Committer } from './persistence/commit.js';
import { StateWriteError } from './persistence/state-file.js';
import {
  type ApplicationRuleListShape,
  pathSegments,
  type Route,
  type RouteMatch,
  type Router,
  fail as routeFail,
} from './router.js';
import type { RequestStats } from './stats.js';
import type { Store } from './store.js';
import type { SyncSettings } from './sync.js';

export interface ServerContext {
  router: Router;
  store: Store;
  auth: Authenticator;
  stats: RequestStats;
  faults: FaultInjector;
  committer: Committer;
  latencyMs: number;
  bodyLimit: number;
  listShape: ApplicationRuleListShape;
  sync: SyncSettings;
}

const FORBIDDEN = errorAnswer(403, 'Forbidden');

export function createRequestListener(context: ServerContext): RequestListener {
  return (req, res) => {
    handle(context, req, res).catch((error: unknown) => {
      const reason = error instanceof Error ? error.message : String(error);
      if (!res.headersSent) sendJson(res, errorAnswer(500, 'Internal emulator error', [reason]));
      else res.destroy();
    });
  };
}

function splitUrl(url: string): { path: string; query: URLSearchParams } {
  // Not `new URL(...)`: it would read the documented `//api/v1/...` as a host name.
  const mark = url.indexOf('?');
  return mark < 0
    ? { path: url, query: new URLSearchParams() }
    : { path: url.slice(0, mark), query: new URLSearchParams(url.slice(mark + 1)) };
}

function statsKey(method: string, match: RouteMatch): string {
  if (match.kind === 'found') return `${method} ${match.route.template}`;
  if (match.kind === 'wrong-method') return `${method} ${match.template}`;
  return `${method} (unknown route)`;
}

async function handle(context: ServerContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const method = req.method ?? 'GET';
  const { path, query } = splitUrl(req.url ?? '/');
  const segments = pathSegments(path);
  if (segments[0] === '__emulator') {
    sendJson(res, control(context, method, segments.slice(1)));
    return;
  }
  const match = context.router.match(method, segments);
  context.stats.count(statsKey(method, match));
  if (context.latencyMs > 0) await delay(context.latencyMs);

  const fault = context.faults.next(isWriteMethod(method));
  if (fault === 'unavailable') return sendJson(res, errorAnswer(503, 'Service unavailable (injected fault)'));
  if (fault === 'rate_limited') {
    return sendJson(res, {
      ...errorAnswer(429, 'Too many requests (injected fault)'),
      headers: { 'retry-after': '1' },
    });
  }
  const answer = await answerRequest(context, req, method, match, query);
  if (answer === undefined) return; // the client went away while sending its body
  if (fault === 'error_after')
    return sendJson(res, errorAnswer(500, 'Internal server error (injected fault)'));
  if (fault === 'reset_after') {
    req.socket.resetAndDestroy();
    return;
  }
  if (fault !== undefined && sendGarbled(res, fault, answer)) return;
  sendJson(res, answer);
}

const GATEWAY_PAGE = '<html><body><h1>200 OK</h1><p>Request processed by gateway</p></body></html>';

/**
 * A confused proxy's 200 for a write, sent after it was handled and persisted (the injector only
 * draws these kinds for writes): an HTML page, the real JSON cut in half, or a JSON envelope saying
 * `error`. It replaces whatever the real answer was, a refused write's 400 included (as `error_after`
 * does). Returns false for any other kind.
 */
function sendGarbled(res: ServerResponse, fault: FaultKind, answer: HttpAnswer): boolean {
  if (fault === 'html_after') {
    sendBytes(res, 200, 'text/html; charset=utf-8', GATEWAY_PAGE);
    return true;
  }
  if (fault === 'truncated_after') {
    // A proper prefix of a JSON object is never JSON: its closing brace is its last byte.
    const whole = Buffer.from(JSON.stringify(answer.body), 'utf8');
    sendBytes(res, 200, 'application/json', whole.subarray(0, Math.floor(whole.length / 2)));
    return true;
  }
  if (fault === 'status_error_after') {
    sendJson(res, { status: 200, body: { status: 'error', message: 'Internal error' } });
    return true;
  }
  return false;
}

async function answerRequest(
  context: ServerContext,
  req: IncomingMessage,
  method: string,
  match: RouteMatch,
  query: URLSearchParams,
): Promise<HttpAnswer | undefined> {
  if (match.kind === 'not-found') return errorAnswer(404, 'Not found');
  if (match.kind === 'wrong-method') {
    const allowed = match.allowed.join(', ');
    return {
      ...errorAnswer(405, 'Method not allowed', [
        `${method} ${match.template}: allowed methods are ${allowed}`,
      ]),
      headers: { allow: allowed },
    };
  }
  const { route, params } = match;
  const caller = context.auth.identify(req.headers.authorization);
  if (caller === undefined || !isAllowed(caller, route.privilege, context.store)) return FORBIDDEN;

  const body = await readRouteBody(context, req, route);
  if (body.kind === 'aborted') return undefined;
  if (body.kind === 'answer') return body.answer;

  const handle = () =>
    route.handle({
      params,
      query,
      body: body.value,
      caller,
      store: context.store,
      listShape: context.listShape,
      sync: context.sync,
    });
  try {
    const result = await context.committer.run(isWriteMethod(method), handle);
    return { status: result.status, body: result.body };
  } catch (error) {
    // Not saved, so rolled back: the client is told it failed, and it did.
    if (error instanceof StateWriteError)
      return errorAnswer(500, 'Error saving the emulator state', [error.message]);
    throw error;
  }
}

type RouteBody =
  | { kind: 'value'; value: unknown }
  | { kind: 'answer'; answer: HttpAnswer }
  | { kind: 'aborted' };

async function readRouteBody(
  context: ServerContext,
  req: IncomingMessage,
  route: Route<string>,
): Promise<RouteBody> {
  if (route.body === 'none') return { kind: 'value', value: undefined };
  const expected = route.body === 'multipart-json' ? 'multipart/mixed' : 'application/json';
  const actual = mediaType(req.headers['content-type']);
  if (actual !== expected) {
    const problem = `content-type: expected ${expected}, got ${actual ?? 'none'}`;
    return { kind: 'answer', answer: errorAnswer(415, 'Unsupported media type', [problem]) };
  }
  const read = await readBody(req, context.bodyLimit);
  if (read.kind === 'aborted') return read;
  if (read.kind === 'too-large') {
    const problem = `body: larger than the limit of ${context.bodyLimit} bytes`;
    return { kind: 'answer', answer: errorAnswer(413, 'Request body too large', [problem]) };
  }
  if (route.body === 'json-ignored') return { kind: 'value', value: undefined };
  const parsed = parseJsonBody(read.text);
  if (parsed.ok) return { kind: 'value', value: parsed.value };
  const failed = routeFail(route.errorMessage, [parsed.error]);
  return { kind: 'answer', answer: { status: failed.status, body: failed.body } };
}

function control(context: ServerContext, method: string, segments: readonly string[]): HttpAnswer {
  const path = segments.join('/');
  if (method === 'GET' && path === 'stats') return { status: 200, body: context.stats.toJSON() };
  if (method === 'POST' && path === 'stats/reset') {
    context.stats.reset();
    return { status: 200, body: { status: 'ok', message: 'Stats reset' } };
  }
  return errorAnswer(404, 'Not found');
}
