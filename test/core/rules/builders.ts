/** Rules, requests and test cases for the rule tests, every field defaulted so a row states only what it is about. */
import type {
  EvalAction,
  EvalCondition,
  EvalRule,
  RuleTestCase,
  TestExpectation,
  TestRequest,
} from '../../../src/core/rules/types.js';

export const HOST = 'shop.example.com';

export interface RuleFields {
  rq_host?: string;
  description?: string;
  priority?: string;
  enabled?: boolean;
  conditions?: readonly Partial<EvalCondition>[];
  actions?: readonly EvalAction[];
}

/** A condition: `match` on `path` unless told otherwise. */
export const condition = (fields: Partial<EvalCondition> = {}): EvalCondition => ({
  operator: 'match',
  not_op: false,
  expressions: ['^/admin/'],
  targets: ['path'],
  ...fields,
});

/** A rule on shop.example.com that blocks on waf-eu-1, keyed `RQ_HOST/DESCRIPTION`. */
export function rule(fields: RuleFields = {}): EvalRule {
  const rq_host = fields.rq_host ?? HOST;
  const description = fields.description ?? 'Block admin';
  return {
    key: `${rq_host}/${description}`,
    rq_host,
    priority: fields.priority ?? 'high',
    enabled: fields.enabled ?? true,
    conditions: (fields.conditions ?? [{}]).map(condition),
    actions: fields.actions ?? [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
  };
}

/** A GET of / on shop.example.com, HTTP/1.1, no headers, no body. */
export const request = (fields: Partial<TestRequest> = {}): TestRequest => ({
  method: 'GET',
  host: HOST,
  path: '/',
  query: '',
  headers: {},
  body: '',
  protocol: 'HTTP/1.1',
  ...fields,
});

export const testCase = (expect: TestExpectation, fields: Partial<TestRequest> = {}): RuleTestCase => ({
  name: 'case',
  request: request(fields),
  expect,
});
