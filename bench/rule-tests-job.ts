/**
 * The rule evaluator alone (issue 43): N application rules over N/100 hosts (1% of them on a glob
 * host), and M requests over the same hosts (one in six on another host). wafctl compiles the rules once (`compileRules`) and decides every request;
 * the naive loop tries every request against every rule, compiling each expression as it goes, on a
 * sample of the requests (it is far too slow for all of them). Both must give the same outcome on
 * the sample, so a fast wrong answer is a broken run.
 */
import { compileExpression } from '../src/core/rules/catalog.js';
import { compileRules, type Outcome } from '../src/core/rules/evaluate.js';
import { hostMatcher } from '../src/core/rules/hosts.js';
import { compareRuleOrder } from '../src/core/rules/priority.js';
import { targetValues } from '../src/core/rules/request-values.js';
import type { EvalCondition, EvalRule, TestRequest } from '../src/core/rules/types.js';
import { type JobOutcome, phaseClock } from './jobs.js';

export const RULES_PER_HOST = 100;
/** The naive loop runs on one request in this many (at least 10). */
export const NAIVE_SAMPLE_EVERY = 500;

const EU = 'waf-eu-1';
const US = 'waf-us-1';
const PRIORITIES = ['high', 'medium', 'low'];
const SCANNERS = ['sqlmap', 'nikto', 'masscan'];

/** Rules 0..99 on app-0, 100..199 on app-1, ...: every host has rules of every kind. */
const hostOf = (i: number, hosts: number) =>
  `app-${Math.floor(i / RULES_PER_HOST) % hosts}.bench.example.com`;
/** 1% of the rules are site-wide (a glob host): SQL injection and scanner rules, alternately. */
const isSiteWide = (i: number) => i % 100 === (Math.floor(i / 100) % 2 === 0 ? 45 : 44);
const match = (targets: string[], expressions: string[], not_op = false): EvalCondition => ({
  operator: 'match',
  not_op,
  expressions,
  targets,
});

/** Rule i's conditions: ten kinds, as a firewall's rules mix them (paths, scanners, injections). */
function conditionsOf(i: number): EvalCondition[] {
  switch (i % 10) {
    case 4:
      return [
        { operator: 'contains', not_op: false, expressions: SCANNERS, targets: ['request:user-agent'] },
      ];
    case 5:
      return [match(['query'], ['(?i)union\\s+select', '(?i)sleep\\('])];
    case 6:
      return [
        { operator: 'equals', not_op: false, expressions: ['DELETE'], targets: ['method'] },
        match(['path'], [`^/admin/${i}/`]),
      ];
    case 7:
      return [
        { operator: 'contains', not_op: false, expressions: ['<script'], targets: ['parameter_value'] },
      ];
    case 8:
      return [
        match(['path'], [`^/private/${i}/`]),
        match(['request:x-api-key'], ['^key-[0-9a-f]{8}$'], true),
      ];
    case 9:
      return [match(['request_target'], [`^app-\\d+\\.bench\\.example\\.com/static/${i}\\.`])];
    default:
      return [match(['path'], [`^/api/v${i % 3}/items/${i}(/|$)`])];
  }
}

function actionsOf(i: number): EvalRule['actions'] {
  if (i % 10 === 9) return [{ firewall_action: 'log', firewall_name: EU }];
  if (i % 13 === 0) return [{ firewall_action: 'allow', firewall_name: EU }];
  if (i % 2 === 0) {
    return [
      { firewall_action: 'block', firewall_name: EU },
      { firewall_action: 'block', firewall_name: US },
    ];
  }
  return [{ firewall_action: 'block', firewall_name: EU }];
}

export function syntheticRules(n: number): EvalRule[] {
  const hosts = Math.max(1, Math.ceil(n / RULES_PER_HOST));
  return Array.from({ length: n }, (_, i) => {
    const rq_host = isSiteWide(i) ? '*.bench.example.com' : hostOf(i, hosts);
    const description = `Rule ${i}`;
    return {
      key: `${rq_host}/${description}`,
      rq_host,
      priority: i % 4 === 3 ? String(i % 50) : (PRIORITIES[i % 3] as string),
      enabled: i % 17 !== 0,
      conditions: conditionsOf(i),
      actions: actionsOf(i),
    };
  });
}

/** Request j: one of six kinds (a path a rule names, a scanner, SQL injection, benign, XSS, another host). */
export function syntheticRequest(j: number, rules: number): TestRequest {
  const hosts = Math.max(1, Math.ceil(rules / RULES_PER_HOST));
  const target = ((j * 37) % Math.max(1, Math.floor(rules / 10))) * 10 + (j % 4);
  const base: TestRequest = {
    method: 'GET',
    host: `app-${j % hosts}.bench.example.com`,
    path: `/products/${j}`,
    query: 'page=2&sort=asc',
    headers: { 'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64)', Accept: 'text/html' },
    body: '',
    protocol: 'HTTP/1.1',
  };
  switch (j % 6) {
    case 0:
      return { ...base, host: hostOf(target, hosts), path: `/api/v${target % 3}/items/${target}/detail` };
    case 1:
      return { ...base, headers: { ...base.headers, 'User-Agent': `${SCANNERS[j % 3]}/1.7` } };
    case 2:
      return { ...base, path: '/search', query: `id=${j} UNION  SELECT password FROM users` };
    case 4:
      return { ...base, path: '/search', query: `q=%3Cscript%3Ealert(${j})%3C/script%3E` };
    case 5:
      return { ...base, host: `other-${j}.example.org` };
    default:
      return base;
  }
}

/** Some expression of some value of some target, compiling each `match` expression on the spot. */
function naiveCondition(condition: EvalCondition, request: TestRequest): boolean {
  let found = false;
  for (const expression of condition.expressions) {
    const compiled = condition.operator === 'match' ? compileExpression(expression) : undefined;
    const test = (value: string) =>
      compiled === undefined
        ? condition.operator === 'equals'
          ? value === expression
          : value.includes(expression)
        : 'regex' in compiled && compiled.regex.test(value);
    for (const target of condition.targets) found ||= (targetValues(request, target) ?? []).some(test);
  }
  return found !== condition.not_op;
}

/** Every rule, every condition; the highest-priority applying rule decides. */
export function naiveDecide(rules: readonly EvalRule[], request: TestRequest): Outcome {
  let best: EvalRule | undefined;
  for (const rule of rules) {
    if (!rule.enabled || rule.actions.length === 0 || !hostMatcher(rule.rq_host)(request.host)) continue;
    if (!rule.conditions.every((condition) => naiveCondition(condition, request))) continue;
    if (best === undefined || compareRuleOrder(rule, best) < 0) best = rule;
  }
  const action = best?.actions[0];
  return best === undefined || action === undefined
    ? { action: 'none' }
    : { action: action.firewall_action, rule: best.key };
}

export async function ruleTestsJob(job: { rules: number; requests: number }): Promise<JobOutcome> {
  const clock = phaseClock();
  const rules = syntheticRules(job.rules);
  const requests = Array.from({ length: job.requests }, (_, j) => syntheticRequest(j, job.rules));
  clock.lap('build inputs');
  const set = compileRules(rules);
  clock.lap('compile');
  const outcomes = requests.map((request) => set.decide(request));
  clock.lap('decide');
  const sample = Math.min(job.requests, Math.max(10, Math.ceil(job.requests / NAIVE_SAMPLE_EVERY)));
  let disagreements = 0;
  for (let j = 0; j < sample; j++) {
    const naive = naiveDecide(rules, requests[j] as TestRequest);
    const fast = outcomes[j] as Outcome;
    if (naive.action !== fast.action || naive.rule !== fast.rule) disagreements++;
  }
  clock.lap('naive');
  const counts: Record<string, number> = {
    rules: rules.length,
    requests: outcomes.length,
    sample,
    disagreements,
  };
  for (const { action } of outcomes) counts[`outcome ${action}`] = (counts[`outcome ${action}`] ?? 0) + 1;
  return { phases: clock.phases, counts };
}
