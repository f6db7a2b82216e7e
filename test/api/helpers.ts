/**
 * Shared fixtures for the client's nock tests: a client with a fake clock (retries never sleep), a
 * recorder of what reached the "server", envelope builders and valid records of every family.
 */
import nock from 'nock';
import { afterEach, beforeEach, expect } from 'vitest';
import { type ApiClient, type ApiClientOptions, createApiClient } from '../../src/api/index.js';

export const BASE = 'http://waf.test';
export const TOKEN = 'tok-9f8e7d6c5b4a-SECRET-d1e2';

export interface FakeClock {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
  /** Every delay the client asked to sleep, in order. */
  readonly sleeps: number[];
}

export function fakeClock(start = 1_700_000_000_000): FakeClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

export function makeClient(options: Partial<ApiClientOptions> = {}): { client: ApiClient; clock: FakeClock } {
  const clock = fakeClock();
  const client = createApiClient({ baseUrl: BASE, token: TOKEN, clock, ...options });
  return { client, clock };
}

/** Installs the standard nock hygiene for a test file: no real network, every interceptor used. */
export function useNock(): void {
  beforeEach(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    nock.enableNetConnect();
    expect(pending).toEqual([]);
  });
}

export interface Recorded {
  method: string;
  /** Path and query exactly as sent. */
  uri: string;
  headers: Record<string, string>;
  /** Parsed JSON when the body was JSON, the raw string otherwise, undefined when empty. */
  body: unknown;
}

function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** Answers the interceptor with `status` and `body` (JSON unless a string), recording each request. */
export function answer(
  interceptor: nock.Interceptor,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Recorded[] {
  const calls: Recorded[] = [];
  interceptor.reply(function (uri, requestBody) {
    calls.push({
      method: this.req.method ?? '',
      uri,
      headers: { ...this.req.headers },
      body: parseBody(requestBody),
    });
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    return [status, text, { 'content-type': 'application/json', ...headers }];
  });
  return calls;
}

export function ok(data?: unknown, message = 'ok'): Record<string, unknown> {
  return data === undefined ? { status: 'ok', message } : { status: 'ok', message, data };
}

export function failure(message: string): Record<string, unknown> {
  return { status: 'error', message };
}

export const group = (overrides: Record<string, unknown> = {}) => ({
  id: '42',
  name: 'soc-analysts',
  description: 'Tier-1 analysts',
  is_admin: false,
  created_at: '2024-05-01T10:00:00Z',
  updated_at: '2024-05-01T10:00:00Z',
  permissions: [
    {
      permission_id: 0,
      permission_name: 'Explore alerts',
      permission_description: 'Visualize and ignore alerts; explore related HTTP transactions.',
      service_id: 'svc-shop',
      service_name: 'shop',
      inserted_at: '2024-05-01T10:00:00Z',
      expired_at: null,
    },
  ],
  users: [{ id: 'u-1001', username: 'alice' }],
  ...overrides,
});

export const notification = (overrides: Record<string, unknown> = {}) => ({
  name: 'splunk',
  enabled: true,
  type: 'siem',
  settings: { destination_address: '10.0.0.5', destination_port: 514, format: 'cef', protocol: 'udp' },
  ...overrides,
});

export const schedule = (overrides: Record<string, unknown> = {}) => ({
  id: '7',
  name: 'weekly-shop',
  hosts: ['shop.example.com'],
  services: null,
  type: 'summary',
  schedule: 'weekly',
  send_to: ['secops@example.com'],
  send_via: 'email',
  timezone: 'Europe/Paris',
  scheduled_by: 'admin',
  scheduled_at: 1_714_557_600_000_000,
  start_timestamp: null,
  end_timestamp: null,
  ...overrides,
});

export const firewallAction = (ruleId = 'ar-1') => ({
  application_rule_id: ruleId,
  firewall_action: 'block',
  firewall_name: 'waf-eu-1',
  sync_status: 'synced',
});

export const applicationRule = (overrides: Record<string, unknown> = {}) => ({
  id: 'ar-1',
  rq_host: 'shop.example.com',
  description: 'Block admin panel from outside',
  priority: 'high',
  enabled: true,
  duration: null,
  start_time: null,
  username: 'gitops-bot',
  alert_set_ids: [],
  rule_set: null,
  rule_set_id: null,
  service: null,
  timestamp_create: 1_714_557_600_000_000,
  timestamp_update: 1_714_557_600_000_000,
  actions: [firewallAction()],
  conditions: [
    {
      id: 'c-1',
      application_rule_id: 'ar-1',
      operator: 'match',
      not_op: false,
      expressions: [{ expression: '^/admin', condition_id: 'c-1' }],
      targets: [{ target: 'path', condition_id: 'c-1' }],
    },
  ],
  ...overrides,
});

export const rule = (overrides: Record<string, unknown> = {}) => ({
  id: 'r-1',
  action: 'block',
  alert_id: null,
  attack_category: 'injection',
  attack_code: 'SQLI',
  attack_name: 'SQL injection',
  case_sensitive: false,
  deleted: false,
  description: 'Block SQL injection on login',
  duration: null,
  enabled: true,
  expression: { type: 'regex', values: ["' OR 1=1"] },
  kind: 'application',
  loaded: 'true',
  matching_method: 'regex',
  network_only: false,
  pattern: null,
  priority: 'high',
  rq_host: 'shop.example.com',
  spec_values: {},
  start_time: null,
  target: 'request_body:x-www-form-urlencoded:login',
  timestamp: 1_714_557_600_000_000,
  username: 'alice',
  ...overrides,
});

export function pagination(page: number, rows: number, totalCount: number, totalPages: number, offset = 0) {
  return {
    first: rows === 0 ? 0 : offset + 1,
    last: offset + rows,
    page,
    total_count: totalCount,
    total_pages: totalPages,
  };
}
