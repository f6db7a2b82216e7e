/**
 * Talking to a real emulator over plain `fetch`, so the tests check the wire format itself (not what
 * some client library makes of it). The wire types below describe what the tests rely on.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EmulatorOptions, type RunningEmulator, startEmulator } from '../../src/emulator/index.js';

export const ADMIN_TOKEN = 'test-admin-token-0001';

export interface WirePagination {
  first: number;
  last: number;
  page: number;
  total_count: number;
  total_pages: number;
}

export interface WireBody<D> {
  status: string;
  message: string;
  errors?: string[];
  data?: D;
  pagination?: WirePagination;
}

export interface Reply<D> {
  status: number;
  headers: Headers;
  body: WireBody<D>;
}

export interface WirePermission {
  permission_id: number;
  permission_name: string;
  permission_description: string;
  service_id: string;
  service_name: string;
  inserted_at: string;
  expired_at: string | null;
}

export interface WireGroup {
  id: string;
  name: string;
  description: string;
  is_admin: boolean;
  created_at: string;
  updated_at: string;
  permissions?: WirePermission[];
  users?: { id: string; username: string }[];
}

export interface WireAction {
  application_rule_id: string;
  firewall_action: string;
  firewall_name: string;
  sync_status: string;
}

export interface WireCondition {
  id: string;
  application_rule_id: string;
  operator: string;
  not_op: boolean;
  expressions: { expression: string; condition_id: string }[];
  targets: { target: string; condition_id: string }[];
}

export interface WireApplicationRule {
  id: string;
  actions?: WireAction[];
  action?: WireAction | null;
  conditions?: WireCondition[];
  alert_set_ids: string[];
  description: string | null;
  duration: number | null;
  enabled: boolean;
  priority: string;
  rq_host: string;
  rule_set: string | null;
  rule_set_id: string | null;
  service: string | null;
  start_time: number | null;
  timestamp_create: number;
  timestamp_update: number;
  username: string;
}

export interface WireNotification {
  name: string;
  enabled: boolean;
  type: string;
  settings: { destination_address: string; destination_port: number; format: string; protocol: string };
}

export interface WireSchedule {
  id: string;
  name: string;
  hosts: string[];
  services: string[] | null;
  type: string;
  schedule: string;
  send_to: string[];
  send_via: string;
  timezone: string;
  scheduled_by: string;
  scheduled_at: number;
  start_timestamp: number | null;
  end_timestamp: number | null;
}

export interface RequestOptions {
  /** A JSON value to send; `rawBody` sends text as is. */
  body?: unknown;
  rawBody?: string;
  /** Default: multipart/mixed for application-rule paths, application/json otherwise (when there is a body). */
  contentType?: string | null;
  /** Default: the client's token; null sends no Authorization header. */
  token?: string | null;
  authorization?: string;
}

export const MULTIPART = 'multipart/mixed; boundary=wafctl-boundary';

export class Client {
  constructor(
    readonly url: string,
    readonly token: string | null = ADMIN_TOKEN,
  ) {}

  as(token: string | null): Client {
    return new Client(this.url, token);
  }

  async request<D = Record<string, unknown>>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<Reply<D>> {
    const headers: Record<string, string> = {};
    const token = options.token === undefined ? this.token : options.token;
    if (options.authorization !== undefined) headers.authorization = options.authorization;
    else if (token !== null) headers.authorization = `Bearer ${token}`;
    const text = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const defaultType = path.includes('application_rules') ? MULTIPART : 'application/json';
    const contentType =
      options.contentType === undefined ? (text === undefined ? null : defaultType) : options.contentType;
    if (contentType !== null) headers['content-type'] = contentType;
    const response = await fetch(`${this.url}${path}`, { method, headers, body: text });
    const body = (await response.json()) as WireBody<D>;
    return { status: response.status, headers: response.headers, body };
  }

  get<D = Record<string, unknown>>(path: string, options?: RequestOptions): Promise<Reply<D>> {
    return this.request<D>('GET', path, options);
  }

  post<D = Record<string, unknown>>(
    path: string,
    body: unknown,
    options?: RequestOptions,
  ): Promise<Reply<D>> {
    return this.request<D>('POST', path, { ...options, body });
  }

  put<D = Record<string, unknown>>(path: string, body: unknown, options?: RequestOptions): Promise<Reply<D>> {
    return this.request<D>('PUT', path, { ...options, body });
  }

  delete<D = Record<string, unknown>>(
    path: string,
    body?: unknown,
    options?: RequestOptions,
  ): Promise<Reply<D>> {
    return this.request<D>('DELETE', path, { ...options, body });
  }
}

/** Starts an emulator (admin token set, port 0) and a client for it; call `close` in afterAll/afterEach. */
export async function startTestEmulator(
  options: EmulatorOptions = {},
): Promise<{ emulator: RunningEmulator; api: Client }> {
  const emulator = await startEmulator({ port: 0, adminToken: ADMIN_TOKEN, ...options });
  return { emulator, api: new Client(emulator.url) };
}

export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-emulator-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export function ruleInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
    conditions: [
      { operator: 'match', expressions: [{ expression: '^/admin' }], targets: [{ target: 'path' }] },
    ],
    description: 'Block admin panel from outside',
    priority: 'high',
    rq_host: 'shop.example.com',
    username: 'gitops-bot',
    ...overrides,
  };
}

export async function createRules(api: Client, rules: Record<string, unknown>[]): Promise<string[]> {
  const reply = await api.post<{ rule_ids: string[] }>('/api/v1/application_rules', { rules });
  if (reply.status !== 200) throw new Error(`creating rules failed: ${JSON.stringify(reply.body)}`);
  return reply.body.data?.rule_ids ?? [];
}

export function notificationInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'splunk',
    enabled: true,
    type: 'siem',
    settings: { destination_address: '10.0.0.5', destination_port: 514, format: 'cef', protocol: 'udp' },
    ...overrides,
  };
}

export function scheduleAttrs(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'weekly-shop',
    hosts: ['shop.example.com'],
    type: 'summary',
    schedule: 'weekly',
    send_to: ['secops@example.com'],
    send_via: 'email',
    timezone: 'Europe/Paris',
    ...overrides,
  };
}

export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
/** UNIX microseconds of a date after 2001 are 16 digits. */
export const MICROS_MIN = 1_000_000_000_000_000;
