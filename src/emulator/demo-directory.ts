/**
 * What the emulator holds when started without a seed: a directory of users (which groups may name as
 * members; none has a token) and a few read-only rules of different kinds. `examples/` and the README
 * refer to these ids, so changing one is a documented, breaking change.
 */
import type { Rule, User } from './records.js';

/**
 * Seer Box creates the `admin` user and the `admins` group it belongs to on first start-up; the
 * group "cannot be edited or deleted" and its members have maximum privileges
 * (https://docs.seerbox.it/main/configuration/authentication-and-authorization). The emulator always
 * holds both (seed.ts): the user under this id unless the seed has a user named `admin`, the group
 * under id `0` (below the group counter, so the ids the API hands out do not move) unless the seed
 * declares a group named `admins`.
 */
export const ADMIN_USER: User = { id: 'u-1000', username: 'admin' };
export const ADMINS_GROUP_ID = '0';
export const ADMINS_GROUP_NAME = 'admins';
export const ADMINS_GROUP_DESCRIPTION = 'Built-in administrators';

export const DEMO_USERS: readonly User[] = [
  { id: 'u-1001', username: 'alice' },
  { id: 'u-1002', username: 'bob' },
  { id: 'u-1003', username: 'carol' },
  { id: 'u-1004', username: 'dave' },
  { id: 'u-1005', username: 'erin' },
  { id: 'u-1006', username: 'frank' },
  { id: 'u-1007', username: 'grace' },
  { id: 'u-1008', username: 'heidi' },
];

/** 2024-03-01T09:00:00Z in UNIX microseconds; the demo rules were "created" a few hours apart. */
const BASE_MICROS = 1_709_283_600_000_000;
const HOUR_MICROS = 3_600_000_000;

export const DEMO_RULES: readonly Rule[] = [
  {
    id: '1',
    action: 'block',
    alert_id: 'al-5001',
    attack_category: 'injection',
    attack_code: 'SQLI',
    attack_name: 'SQL injection',
    case_sensitive: false,
    deleted: false,
    description: 'Block UNION-based SQL injection in the search form',
    duration: null,
    enabled: true,
    expression: { type: 'regex', values: ['(?i)union\\s+select'] },
    kind: 'application',
    loaded: 'true',
    matching_method: 'regex',
    network_only: false,
    pattern: 'union select',
    priority: 'high',
    rq_host: 'shop.example.com',
    spec_values: { alert_count: 12, first_seen: '2024-02-28T17:04:11Z' },
    start_time: null,
    target: 'query',
    timestamp: BASE_MICROS,
    username: 'alice',
  },
  {
    id: '2',
    action: 'log',
    alert_id: null,
    attack_category: null,
    attack_code: null,
    attack_name: null,
    case_sensitive: true,
    deleted: false,
    description: 'Log requests to the legacy admin path',
    duration: null,
    enabled: true,
    expression: { type: 'prefix', values: ['/wp-admin'] },
    kind: 'application',
    loaded: 'true',
    matching_method: 'begins_with',
    network_only: false,
    pattern: null,
    priority: 'low',
    rq_host: 'blog.example.com',
    spec_values: {},
    start_time: null,
    target: 'path',
    timestamp: BASE_MICROS + HOUR_MICROS,
    username: 'bob',
  },
  {
    id: '3',
    action: 'deny',
    alert_id: 'al-5002',
    attack_category: 'reconnaissance',
    attack_code: 'SCAN',
    attack_name: 'Port scan',
    case_sensitive: false,
    deleted: false,
    description: 'Temporary ban of a scanning source',
    duration: 86_400,
    enabled: true,
    expression: { type: 'ip', values: ['203.0.113.45'] },
    kind: 'source',
    loaded: 'true',
    matching_method: 'exact',
    network_only: true,
    pattern: null,
    priority: 'high',
    rq_host: 'api.example.com',
    spec_values: { packets: 48_211 },
    start_time: BASE_MICROS + 2 * HOUR_MICROS,
    target: 'source_ip',
    timestamp: BASE_MICROS + 2 * HOUR_MICROS,
    username: 'carol',
  },
  {
    id: '4',
    action: 'allow',
    alert_id: null,
    attack_category: null,
    attack_code: null,
    attack_name: null,
    case_sensitive: false,
    deleted: false,
    description: 'Allow the office network to reach the API',
    duration: null,
    enabled: true,
    expression: { type: 'cidr', values: ['198.51.100.0/24'] },
    kind: 'source',
    loaded: 'false',
    matching_method: 'exact',
    network_only: true,
    pattern: null,
    priority: 'medium',
    rq_host: 'api.example.com',
    spec_values: {},
    start_time: null,
    target: 'source_ip',
    timestamp: BASE_MICROS + 3 * HOUR_MICROS,
    username: 'alice',
  },
  {
    id: '5',
    action: 'block',
    alert_id: 'al-5003',
    attack_category: 'xss',
    attack_code: 'XSS',
    attack_name: 'Cross-site scripting',
    case_sensitive: false,
    deleted: true,
    description: 'Script tags in the comment field (superseded)',
    duration: null,
    enabled: false,
    expression: { type: 'contains', values: ['<script'] },
    kind: 'application',
    loaded: 'false',
    matching_method: 'contains',
    network_only: false,
    pattern: '<script',
    priority: 'medium',
    rq_host: 'blog.example.com',
    spec_values: { alert_count: 3 },
    start_time: null,
    target: 'request_body:x-www-form-urlencoded:comment',
    timestamp: BASE_MICROS + 4 * HOUR_MICROS,
    username: 'dave',
  },
];
