/**
 * Route declarations and matching. A route says everything the pipeline needs before its handler
 * runs: the privilege, how its body is read, and its documented 400 message (used when the body
 * itself is unreadable). Handlers are synchronous: they validate, then mutate the store, so requests
 * never interleave half-way through a change.
 */
import type { Caller, Privilege } from './auth.js';
import type { Store } from './store.js';
import type { SyncSettings } from './sync.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/**
 * - `none`: no body is read;
 * - `json`: `application/json`, a JSON body is required;
 * - `multipart-json`: `multipart/mixed` whose body is the JSON document (application-rule writes);
 * - `json-ignored`: `application/json` is required but the body, if any, is ignored (group DELETE).
 */
export type BodyKind = 'none' | 'json' | 'multipart-json' | 'json-ignored';

export type ApplicationRuleListShape = 'full' | 'single-action';

export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  caller: Caller;
  store: Store;
  listShape: ApplicationRuleListShape;
  /** How application-rule actions synchronize (sync.ts). */
  sync: SyncSettings;
}

export interface RouteResult {
  /** 401: a refused sign-in, the vendor's status for it (routes/signin.ts). */
  status: 200 | 400 | 401;
  body: Record<string, unknown>;
  /** True when the store changed (and must be persisted). */
  mutated: boolean;
}

/** A route; a built-in one names a built-in privilege, a test's may name its collections' (`P`). */
export interface Route<P extends string = Privilege> {
  method: Method;
  /** Path template as documented, e.g. `/api/v1/groups/{id}`; also the key in the stats. */
  template: string;
  /** A privilege of the collection table (collections.ts), or sign-in's. */
  privilege: P;
  body: BodyKind;
  /** The endpoint's documented 400 message. */
  errorMessage: string;
  handle(context: RouteContext): RouteResult;
}

export function ok(
  message: string,
  data?: Record<string, unknown>,
  extra?: Record<string, unknown>,
): RouteResult {
  const body: Record<string, unknown> = { status: 'ok', message };
  if (data !== undefined) body.data = data;
  return { status: 200, body: { ...body, ...extra }, mutated: false };
}

export function changed(message: string, data?: Record<string, unknown>): RouteResult {
  return { ...ok(message, data), mutated: true };
}

export function fail(message: string, errors: readonly string[]): RouteResult {
  return { status: 400, body: { status: 'error', message, errors: [...errors] }, mutated: false };
}

/** Collapses repeated slashes and drops a trailing one, then splits into raw (still encoded) segments. */
export function pathSegments(rawPath: string): string[] {
  return rawPath
    .replace(/\/{2,}/g, '/')
    .split('/')
    .filter((segment) => segment !== '');
}

export type RouteMatch =
  | { kind: 'found'; route: Route<string>; params: Record<string, string> }
  | { kind: 'wrong-method'; template: string; allowed: Method[] }
  | { kind: 'not-found' };

interface CompiledRoute {
  route: Route<string>;
  segments: string[];
}

export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: readonly Route<string>[]) {
    this.compiled = routes.map((route) => ({ route, segments: pathSegments(route.template) }));
  }

  match(method: string, segments: readonly string[]): RouteMatch {
    const allowed: Method[] = [];
    let template: string | undefined;
    for (const { route, segments: pattern } of this.compiled) {
      const params = matchSegments(pattern, segments);
      if (params === undefined) continue;
      if (route.method === method) return { kind: 'found', route, params };
      allowed.push(route.method);
      template ??= route.template;
    }
    return template === undefined ? { kind: 'not-found' } : { kind: 'wrong-method', template, allowed };
  }
}

function matchSegments(
  pattern: readonly string[],
  segments: readonly string[],
): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [index, expected] of pattern.entries()) {
    const actual = segments[index] ?? '';
    if (expected.startsWith('{') && expected.endsWith('}')) {
      const value = safeDecode(actual);
      if (value === undefined) return undefined;
      params[expected.slice(1, -1)] = value;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
