/**
 * The test application rule, defined once: `ruleYaml` writes one entry of `application_rules` (the
 * flow-style rule most tests declare, a host, a description, one match condition on the path and one
 * action) and `rulesYaml` a whole list, so that a change to the configuration format is made here and
 * not in every test that needs a rule. `EXAMPLES` is the example configuration, by absolute path, so
 * no test depends on the directory it is run from.
 */
import { fileURLToPath } from 'node:url';

/** The absolute path of `examples/config/` (with its trailing slash). */
export const EXAMPLES = fileURLToPath(new URL('../../examples/config/', import.meta.url));

export interface RuleSpec {
  host?: string;
  description?: string;
  priority?: string;
  /** The one expression of the one condition (`operator: match` on `path`). */
  expression?: string;
  action?: string;
  firewall?: string;
  /** Written only when given (the configuration's default is `true`). */
  enabled?: boolean;
  protect?: boolean;
}

/** A YAML double-quoted scalar: JSON, with the characters YAML does not print raw escaped. */
const quoted = (value: string) =>
  JSON.stringify(value).replace(
    /[\u007f-\u00a0\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** Strings YAML would read as something else when plain: numbers, booleans and null. */
const NOT_A_STRING =
  /^(?:[-+]?(?:\d[\d_]*\.?\d*|\.\d+)(?:e[-+]?\d+)?|0x[\da-f]+|0o[0-7]+|true|false|yes|no|on|off|null|~)$/i;

/**
 * `value` plain when it reads back as the same string, else double-quoted. In a flow mapping (`flow`)
 * only a single word stays plain.
 */
function scalar(value: string, flow = false): string {
  const plain = flow
    ? /^[\w.-]+$/.test(value)
    : /^[\p{L}\p{N}_][\p{L}\p{N}_ ./:^-]*$/u.test(value) && !/: |:$| $/.test(value);
  return plain && !NOT_A_STRING.test(value) ? value : quoted(value);
}

/**
 * One entry of `application_rules`, 2-space list indent, ending in a newline. The defaults make the rule
 * `shop.example.com/Block admin`, which blocks `^/admin` on waf-eu-1.
 */
export function ruleYaml({
  host = 'shop.example.com',
  description = 'Block admin',
  priority = 'high',
  expression = '^/admin',
  action = 'block',
  firewall = 'waf-eu-1',
  enabled,
  protect,
}: RuleSpec = {}): string {
  return [
    `  - rq_host: ${scalar(host)}`,
    `    description: ${scalar(description)}`,
    `    priority: ${scalar(priority)}`,
    ...(enabled === undefined ? [] : [`    enabled: ${enabled}`]),
    ...(protect ? ['    protect: true'] : []),
    `    conditions: [{operator: match, expressions: [${quoted(expression)}], targets: [path]}]`,
    `    actions: [{firewall_action: ${scalar(action, true)}, firewall_name: ${scalar(firewall, true)}}]`,
    '',
  ].join('\n');
}

/** An `application_rules` list of `specs` (`application_rules: []` when there are none). */
export function rulesYaml(specs: RuleSpec[]): string {
  return specs.length === 0
    ? 'application_rules: []\n'
    : `application_rules:\n${specs.map(ruleYaml).join('')}`;
}

/**
 * An overlay of the test rule, as an environment's path writes it: the natural key, and the action
 * that overrides the earlier path's (`log` where the base blocks, say).
 */
export function actionOverlayYaml({
  host = 'shop.example.com',
  description = 'Block admin',
  action = 'block',
  firewall = 'waf-eu-1',
}: RuleSpec = {}): string {
  return [
    `  - rq_host: ${scalar(host)}`,
    `    description: ${scalar(description)}`,
    `    actions: [{firewall_action: ${scalar(action, true)}, firewall_name: ${scalar(firewall, true)}}]`,
    '',
  ].join('\n');
}

/**
 * A small configuration: two rules of two hosts (`shop.example.com/Block admin`,
 * `blog.example.com/Block login`) and the group `soc`, as files for `writeConfig`.
 */
export function rulesAndGroupFiles(): Record<string, string> {
  return {
    'rules.yaml': rulesYaml([{}, { host: 'blog.example.com', description: 'Block login' }]),
    'groups.yaml': 'groups:\n  - name: soc\n    description: Analysts\n',
  };
}

/**
 * Rule tests of the shop's rules (`rulesYaml`'s Block admin on `^/admin`, and `LOG_ALL_RULE`): cases
 * as YAML list items, joined under `tests:` by `ruleTestsYaml`.
 */
export const LOG_ALL_RULE: RuleSpec = {
  description: 'Log everything',
  priority: 'low',
  expression: '^/',
  action: 'log',
};

export const ADMIN_CASE = `  - name: admin panel from outside
    request: {host: shop.example.com, path: /admin}
    expect: {action: block}
`;

export const FRONT_CASE = `  - name: shop front is logged
    request: {host: shop.example.com, path: /shop}
    expect: {action: log}
`;

export const ruleTestsYaml = (...cases: string[]): string => `tests:\n${cases.join('')}`;
