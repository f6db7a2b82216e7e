/**
 * The Behaviour section in the text, markdown and JSON plans, and the `fails_tests` class of
 * `--fail-on`. The behaviour is set by hand here: its evaluation is test/plan/behaviour.test.ts's.
 */
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../../src/core/errors.js';
import type { Plan, PlanBehaviour } from '../../../src/core/model.js';
import { planDocumentSchema } from '../../../src/core/plan-document.js';
import { failOnRefusal } from '../../../src/plan/policy.js';
import { behaviourHeadline } from '../../../src/plan/render/behaviour.js';
import { planToJson, renderJsonPlan } from '../../../src/plan/render/json.js';
import { renderMarkdownPlan } from '../../../src/plan/render/markdown.js';
import { renderTextPlan } from '../../../src/plan/render/text.js';
import { OLD_PLAN_DOCUMENT } from '../../core/old-plan.js';
import { samplePlan } from '../fixtures.js';

const BLOCK = { action: 'block', rule: 'shop.example.com/Block admin', firewall: 'waf-eu-1' };
const LOG = { action: 'log', rule: 'shop.example.com/Log everything', firewall: 'waf-eu-1' };

const BEHAVIOUR: PlanBehaviour = {
  tests: 4,
  changed: [{ name: 'admin panel from outside', before: BLOCK, after: LOG }],
  failing: [
    {
      name: 'login spraying is logged',
      status: 'fail',
      expected: { action: 'log' },
      actual: { action: 'none' },
      reason: 'expected log, got none: no rule applies',
    },
    {
      name: 'cookie theft',
      status: 'error',
      expected: { action: 'block' },
      reason: 'shop.example.com/Cookies could decide this request, but wafctl cannot evaluate it: ...',
    },
  ],
};

const withBehaviour = (behaviour: PlanBehaviour = BEHAVIOUR): Plan => ({ ...samplePlan(), behaviour });
const text = (plan: Plan) => renderTextPlan(plan, { color: false });

describe('the Behaviour section', () => {
  it('comes after the Security impact section and before the details in the text plan', () => {
    const out = text(withBehaviour());
    expect(out).toContain(
      [
        '',
        'Behaviour: 4 tests; 1 changes its outcome, 1 fails, 1 cannot be evaluated after this plan.',
        '  ~ admin panel from outside: block -> log',
        '  ✗ login spraying is logged: expected log, got none: no rule applies',
        '  ✗ cookie theft: cannot be evaluated: shop.example.com/Cookies could decide this request, but wafctl cannot evaluate it: ...',
        '',
        'wafctl will perform the following actions:',
      ].join('\n'),
    );
    expect(out.indexOf('Security impact:')).toBeLessThan(out.indexOf('Behaviour:'));
  });

  it('names the deciding rules when the rule is what changed, and escapes names', () => {
    const other = { ...BLOCK, rule: 'shop.example.com/Block admin area' };
    const out = text(
      withBehaviour({ tests: 1, changed: [{ name: 'a\nb', before: BLOCK, after: other }], failing: [] }),
    );
    expect(out).toContain(
      '  ~ a\\nb: block (shop.example.com/Block admin) -> block (shop.example.com/Block admin area)\n',
    );
  });

  it('says so when no outcome changes and every test passes, also in a plan without changes', () => {
    const plan: Plan = { ...samplePlan(), changes: [], behaviour: { tests: 3, changed: [], failing: [] } };
    const out = text(plan);
    expect(out).toMatch(/^Behaviour: 3 tests; no outcome changes, all pass after this plan\.\n\n/);
    expect(out).toMatch(/\nNo changes\. The firewall matches the configuration\.\n$/);
    expect(behaviourHeadline({ tests: 1, changed: [], failing: [] })).toBe(
      '1 test; no outcome changes, it passes after this plan.',
    );
  });

  it('is absent without tests', () => {
    const out = text(samplePlan());
    expect(out).not.toContain('Behaviour');
    expect(renderMarkdownPlan(samplePlan())).not.toContain('Behaviour');
    expect(planToJson(samplePlan())).not.toHaveProperty('behaviour');
  });

  it('is in the markdown plan before the details, names escaped', () => {
    const md = renderMarkdownPlan(
      withBehaviour({
        ...BEHAVIOUR,
        changed: [{ name: 'admin `panel` <b>', before: BLOCK, after: LOG }],
      }),
    );
    expect(md).toContain(
      [
        '#### Behaviour',
        '',
        '4 tests; 1 changes its outcome, 1 fails, 1 cannot be evaluated after this plan.',
        '',
        '- **changes** ``admin `panel` <b>``: block -&gt; log',
        '- **fails** `login spraying is logged`: expected log, got none: no rule applies',
        '- **cannot be evaluated** `cookie theft`: shop.example.com/Cookies could decide this request, but wafctl cannot evaluate it: ...',
      ].join('\n'),
    );
    expect(md.indexOf('#### Security impact')).toBeLessThan(md.indexOf('#### Behaviour'));
    expect(md.indexOf('#### Behaviour')).toBeLessThan(md.indexOf('<details>'));
  });

  it('is `behaviour` in the JSON plan, read back as written; a plan written before it still decodes', () => {
    const json = JSON.parse(renderJsonPlan(withBehaviour()));
    expect(json.behaviour).toEqual(BEHAVIOUR);
    const decoded = planDocumentSchema.safeParse(json);
    expect(decoded.success && decoded.data.behaviour).toEqual(BEHAVIOUR);
    const old = planDocumentSchema.safeParse(OLD_PLAN_DOCUMENT);
    expect(old.success).toBe(true);
    expect(old.data).not.toHaveProperty('behaviour');
    // A saved plan is hostile input: the section is checked too.
    const forged = { ...json, behaviour: { ...json.behaviour, failing: [{ name: 'x', status: 'skipped' }] } };
    expect(planDocumentSchema.safeParse(forged).success).toBe(false);
  });
});

describe('--fail-on fails_tests', () => {
  it('refuses (exit 3) when a test does not pass after the plan, naming the first tests', () => {
    const refusal = failOnRefusal(withBehaviour(), ['fails_tests'], 'Nothing was applied.');
    expect(refusal?.message).toBe(
      '--fail-on fails_tests: 2 tests do not pass after this plan ("login spraying is logged", "cookie theft"); see the Behaviour section above. Nothing was applied.',
    );
    expect(refusal && exitCodeFor(refusal)).toBe(3);
  });

  it('names five tests, then how many more; joined with an impact class', () => {
    const failing = Array.from({ length: 7 }, (_, i) => ({
      name: `t${i}`,
      status: 'fail' as const,
      expected: { action: 'block' },
      actual: { action: 'none' },
      reason: 'expected block, got none: no rule applies',
    }));
    const refusal = failOnRefusal(
      withBehaviour({ tests: 7, changed: [], failing }),
      ['weakens_protection', 'fails_tests'],
      'Nothing was applied.',
    );
    expect(refusal?.message).toMatch(
      /^--fail-on weakens_protection,fails_tests: 2 changes weaken protection \(.*\); 7 tests do not pass after this plan \("t0", "t1", "t2", "t3", "t4" and 2 more\); see the Security impact and Behaviour sections above\. Nothing was applied\.$/,
    );
  });

  it('lets a plan through when every test passes, when it has no tests, or when the class is not named', () => {
    const passing = withBehaviour({ tests: 2, changed: BEHAVIOUR.changed, failing: [] });
    expect(failOnRefusal(passing, ['fails_tests'], '')).toBeUndefined();
    expect(failOnRefusal(samplePlan(), ['fails_tests'], '')).toBeUndefined();
    expect(failOnRefusal(withBehaviour(), ['reduces_audit'], '')).toBeUndefined();
  });
});
