/**
 * The GitHub Action's pure functions (src/action/: inputs.ts, invocation.ts, args.ts, outcome.ts,
 * workflow.ts, summary.ts, comment.ts): inputs as GitHub passes them, the refusals, wafctl's argument
 * lists, the markers and the outputs.
 */
import { describe, expect, it } from 'vitest';
import { applyArgs, driftArgs, planArgs, pullArgs, savedPlanArgs } from '../../src/action/args.js';
import { nextLink, pullRequestNumber } from '../../src/action/comment.js';
import { type ActionInputs, inputVariable, readInputs } from '../../src/action/inputs.js';
import { type Invocation, resolveInvocation } from '../../src/action/invocation.js';
import { exitHasChanges, savedPlanHasChanges, stepExitCode } from '../../src/action/outcome.js';
import { commandSummary } from '../../src/action/summary.js';
import { errorAnnotation, formatOutputs } from '../../src/action/workflow.js';
import { parseOutputs } from './action-helpers.js';

const none: ActionInputs = readInputs({});

function invocation(inputs: Partial<ActionInputs>): Invocation {
  const resolution = resolveInvocation({ ...none, ...inputs });
  if (!resolution.ok) throw new Error(resolution.refusal);
  return resolution.invocation;
}

function refusal(inputs: Partial<ActionInputs>): string {
  const resolution = resolveInvocation({ ...none, ...inputs });
  return resolution.ok ? '' : resolution.refusal;
}

describe('the action: inputs', () => {
  it('reads INPUT_* as GitHub names them (upper-cased, dashes kept) and trims them', () => {
    expect(inputVariable('fail-on')).toBe('INPUT_FAIL-ON');
    expect(inputVariable('working-directory')).toBe('INPUT_WORKING-DIRECTORY');
    const inputs = readInputs({
      INPUT_COMMAND: ' apply ',
      'INPUT_FAIL-ON': 'weakens_protection',
      'INPUT_PLAN-FILE': 'plan.json',
      'INPUT_WORKING-DIRECTORY': 'infra',
      'INPUT_GITHUB-TOKEN': 'ghs_x',
      INPUT_COMMENT: 'true',
      INPUT_FAIL_ON: 'ignored: not the name GitHub uses',
    });
    expect(inputs).toMatchObject({
      command: 'apply',
      failOn: 'weakens_protection',
      planFile: 'plan.json',
      workingDirectory: 'infra',
      githubToken: 'ghs_x',
      comment: 'true',
      paths: '',
    });
  });

  it('defaults: plan of ., no comment, the bundled CLI', () => {
    const run = invocation({});
    expect(run).toMatchObject({
      command: 'plan',
      paths: ['.'],
      comment: false,
      version: '',
      marker: '<!-- wafctl-plan -->',
    });
    expect(planArgs(run)).toEqual(['plan', '.', '--detailed-exitcode', '--format', 'markdown']);
  });

  it('builds the argument list of each command', () => {
    const run = invocation({
      command: 'apply',
      paths: 'base  envs/prod\n',
      url: 'https://x',
      failOn: 'broadens_access',
    });
    expect(savedPlanArgs(run, '/t/plan.json')).toEqual([
      'plan',
      'base',
      'envs/prod',
      '--url',
      'https://x',
      '--fail-on',
      'broadens_access',
      '--out',
      '/t/plan.json',
    ]);
    // Judged by the policy of the configuration at PATHS (issue 39), so they are given too.
    expect(applyArgs(run, '/t/plan.json')).toEqual([
      'apply',
      '--plan',
      '/t/plan.json',
      'base',
      'envs/prod',
      '--url',
      'https://x',
      '--fail-on',
      'broadens_access',
    ]);
    const drift = invocation({ command: 'drift', paths: 'config', failOn: 'weakens_protection' });
    expect(driftArgs(drift, '/t/d.md')).toEqual([
      'drift',
      'config',
      '--fail-on',
      'weakens_protection',
      '--format',
      'markdown',
      '--report',
      '/t/d.md',
    ]);
    // pull takes the URL, never --fail-on.
    const pull = invocation({ command: 'pull', paths: 'config', url: 'https://x', failOn: 'x' });
    expect(pullArgs(pull)).toEqual(['pull', 'config', '--url', 'https://x', '--adopt']);
    expect(pull.marker).toBe('');
  });

  it('environments: --env per name; one name has its own marker and room for it', () => {
    const one = invocation({ command: 'plan', paths: 'config', environment: 'staging' });
    expect(one.marker).toBe('<!-- wafctl-plan:staging -->');
    expect(one.ownMarker).toBe(one.marker);
    expect(planArgs(one)).toEqual([
      'plan',
      'config',
      '--max-chars',
      String(65_536 - '<!-- wafctl-plan:staging -->'.length - 1),
      '--env',
      'staging',
      '--detailed-exitcode',
      '--format',
      'markdown',
    ]);
    const several = invocation({ command: 'drift', environment: 'staging, production' });
    expect(several.envFlags).toEqual(['--env', 'staging', '--env', 'production']);
    // A name wafctl.yaml allows is one the action passes on (dots included).
    expect(invocation({ command: 'plan', environment: 'eu.west-1' }).envFlags).toEqual([
      '--env',
      'eu.west-1',
    ]);
    expect(several).toMatchObject({ marker: '<!-- wafctl-drift -->', ownMarker: '' });
    const all = invocation({ command: 'plan', environment: 'all' });
    expect(all).toMatchObject({ envFlags: ['--env', 'all'], marker: '<!-- wafctl-plan -->', ownMarker: '' });
    // apply and pull: no markdown, no marker, no --max-chars.
    const apply = invocation({ command: 'apply', environment: 'production' });
    expect(apply.marker).toBe('');
    expect(apply.common).toEqual([]);
  });

  it.each([
    [{ environment: 'staging;rm -rf /' }, 'environment must be environment names of wafctl.yaml'],
    [{ environment: '../production' }, 'environment must be environment names of wafctl.yaml'],
    [{ environment: 'staging\n::add-mask::x' }, 'environment must be environment names of wafctl.yaml'],
    [{ command: 'apply', environment: 'staging,production' }, 'apply takes one environment per run'],
    [{ command: 'apply', environment: 'all' }, 'apply takes one environment per run'],
    [{ command: 'pull', environment: 'staging production' }, 'pull takes one environment per run'],
    [{ environment: 'staging', url: 'https://x' }, 'url cannot be combined with environment'],
    [{ command: 'destroy' }, "command must be plan, apply, drift or pull, got 'destroy'"],
    [
      { version: 'latest' },
      "version must be a wafctl version to run from the npm registry (e.g. 1.2.3), got 'latest'",
    ],
    [{ version: '1.2' }, 'version must be a wafctl version'],
    [{ version: '1.2.3 && curl x' }, 'version must be a wafctl version'],
    [{ comment: 'yes' }, "comment must be true or false, got 'yes'"],
  ] as [Partial<ActionInputs>, string][])('refuses %j: %s', (inputs, message) => {
    expect(refusal(inputs)).toContain(message);
  });

  it('the refusals keep the wording of the former action script', () => {
    expect(refusal({ environment: 'a b/c' })).toBe(
      "environment must be environment names of wafctl.yaml (letters, digits, ., - and _, starting with a letter or digit) or all, separated by commas or spaces, got 'a b/c'",
    );
    expect(refusal({ command: 'apply', environment: 'all' })).toBe(
      "apply takes one environment per run, got 'all': run one job per environment (a matrix with max-parallel: 1)",
    );
    // The environment is checked before the command, as the script did.
    expect(refusal({ command: 'destroy', environment: '!' })).toContain('environment must be');
  });

  it('accepts semver versions, with or without v, and booleans as GitHub reads them', () => {
    expect(invocation({ version: '1.4.2' }).version).toBe('1.4.2');
    expect(invocation({ version: 'v2.0.0-rc.1' }).version).toBe('2.0.0-rc.1');
    expect(invocation({ comment: 'True' }).comment).toBe(true);
    expect(invocation({ comment: 'FALSE' }).comment).toBe(false);
  });

  it('an error annotation escapes what could start a workflow command of its own', () => {
    expect(errorAnnotation("got 'a\n::add-mask::x 100%\r'")).toBe(
      "::error::wafctl action: got 'a%0A::add-mask::x 100%25%0D'",
    );
  });

  it('pins trust to the base branch on pull requests, to the ref given, or to none', () => {
    const pr = (inputs: Partial<ActionInputs>, name = 'pull_request') =>
      resolveInvocation({ ...none, ...inputs }, { name, baseRef: 'main' });
    const planOn = (inputs: Partial<ActionInputs>, name?: string) => {
      const resolution = pr(inputs, name);
      if (!resolution.ok) throw new Error(resolution.refusal);
      return resolution.invocation;
    };
    const onPr = planOn({});
    expect(onPr.trustedRef).toEqual({ ref: 'origin/main', fetchBranch: 'main' });
    expect(planArgs(onPr)).toEqual([
      'plan',
      '.',
      '--trusted-ref',
      'origin/main',
      '--detailed-exitcode',
      '--format',
      'markdown',
    ]);
    expect(pullArgs(onPr)).toContain('--trusted-ref');
    expect(planOn({}, 'pull_request_target').trustedRef.ref).toBe('origin/main');
    // Another event: nothing by default; a ref given is used as it is, never fetched; none is none.
    expect(planOn({}, 'push').trustedRef).toEqual({ ref: '' });
    expect(planArgs(planOn({}, 'push'))).not.toContain('--trusted-ref');
    expect(planOn({ trustedRef: 'v1.2' }, 'push').trustedRef).toEqual({ ref: 'v1.2' });
    expect(planOn({ trustedRef: 'none' }).trustedRef).toEqual({ ref: '' });
    expect(refusal({ trustedRef: '--upload-pack=x' })).toBe(
      "trusted-ref must be a git ref (a branch, tag or commit), or none, got '--upload-pack=x'",
    );
    const bad = resolveInvocation(none, { name: 'pull_request', baseRef: '-x' });
    expect(bad.ok ? '' : bad.refusal).toContain("base branch '-x' is not a ref the action can pin to");
  });
});

describe('the action: outputs', () => {
  it('has-changes from exit codes 2 and 3, and from a saved plan summary', () => {
    expect([0, 1, 2, 3].map(exitHasChanges)).toEqual([false, false, true, true]);
    expect(savedPlanHasChanges('{"summary":{"create":0,"update":0,"replace":1,"delete":0}}')).toBe(true);
    expect(savedPlanHasChanges('{"summary":{"create":0,"update":0,"replace":0,"delete":0}}')).toBe(false);
    expect(savedPlanHasChanges('not json')).toBe(false);
    expect(savedPlanHasChanges(undefined)).toBe(false);
  });

  it('exit 2 passes the step; 1 and 3 fail it', () => {
    expect([0, 1, 2, 3].map(stepExitCode)).toEqual([0, 1, 0, 3]);
  });

  it('writes the outputs as GitHub reads them, a line break in the multi-line form', () => {
    const text = formatOutputs({
      exitCode: 3,
      hasChanges: true,
      markdown: '/t/wafctl-plan.md',
      commentMarker: '<!-- wafctl-plan -->',
    });
    expect(text).toBe(
      'exit-code=3\nhas-changes=true\nmarkdown=/t/wafctl-plan.md\ncomment-marker=<!-- wafctl-plan -->\n',
    );
    const odd = formatOutputs(
      { exitCode: 0, hasChanges: false, markdown: '/t/a\nb', commentMarker: '' },
      'EOF',
    );
    expect(odd).toContain('markdown<<EOF\n/t/a\nb\nEOF\n');
    expect(parseOutputs(odd)).toEqual({
      'exit-code': '0',
      'has-changes': 'false',
      markdown: '/t/a\nb',
      'comment-marker': '',
    });
  });

  it('the job summary of apply and pull: the outcome, and the log in a fence it cannot close', () => {
    const apply = invocation({ command: 'apply', environment: 'staging' });
    const summary = commandSummary(apply, 3, true, '\u001b[31mPlan: 1 to add\u001b[0m\n```\n');
    expect(summary).toContain('### wafctl apply (`staging`): refused by fail-on (exit 3)');
    expect(summary).toContain('Changes: yes');
    expect(summary).toContain('````text\nPlan: 1 to add\n```\n````');
    const pull = commandSummary(invocation({ command: 'pull' }), 0, false, 'x'.repeat(100_000));
    expect(pull).toContain('### wafctl pull: succeeded');
    expect(pull.length).toBeLessThan(61_000);
    expect(pull).toContain('characters left out');
  });

  it('the pull request of the event: pull_request, or an issue comment on one', () => {
    expect(pullRequestNumber({ pull_request: { number: 7 } })).toBe(7);
    expect(pullRequestNumber({ issue: { number: 8, pull_request: {} } })).toBe(8);
    expect(pullRequestNumber({ issue: { number: 9 } })).toBeUndefined();
    expect(pullRequestNumber(undefined)).toBeUndefined();
  });

  it("reads the next page from GitHub's Link header", () => {
    expect(
      nextLink(
        '<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"',
      ),
    ).toBe('https://api.github.com/x?page=2');
    expect(nextLink('<https://api.github.com/x?page=1>; rel="prev"')).toBeUndefined();
    expect(nextLink(null)).toBeUndefined();
  });
});
