/**
 * The trusted side of a configuration (issue 39). A pull request writes the work tree, so whatever
 * decides where wafctl connects, which secrets it may read and how changes are judged can be pinned
 * to a trusted git ref (`--trusted-ref`, trusted-ref.ts): the connections of wafctl.yaml's
 * environments, the `variables` allow-list, `settings.firewall_actions`, `settings.safety`,
 * `manage` and the rule tests that judge a plan (issue 43: else a pull request that weakens a rule
 * could delete or rewrite the test that catches it). The objects always come from the work tree.
 *
 * Pure: the loader reads both sides; this says what is a credential, what the work tree changes in
 * the trusted parts, and which policy a plan is judged by.
 */
import type { FirewallActions } from '../core/firewall-actions.js';
import { ACTION_CLASSES } from '../core/firewall-actions.js';
import type { TrustChange } from '../core/model.js';
import type { ManageScope } from '../core/scope.js';
import { printable } from '../core/text.js';
import type { CredentialVariables } from './env.js';
import type { EnvironmentSpec, Project } from './project.js';
import type { LocatedTestCase } from './rule-test-schema.js';
import type { LoadedConfig } from './validate-sources.js';

/** The fields of an environment that say where it connects and as whom. */
const CONNECTION_FIELDS = [
  'url',
  'url_env',
  'token_env',
  'signin_username_env',
  'signin_password_env',
] as const;

/** The fields naming a variable that holds a credential or a connection setting. */
const CREDENTIAL_FIELDS = ['url_env', 'token_env', 'signin_username_env', 'signin_password_env'] as const;

/** The fields naming a variable whose value is a secret: redacted everywhere and never sent. */
const SECRET_FIELDS = ['token_env', 'signin_password_env'] as const;

/** Each variable the `fields` of the projects' environments name, with why it is named. */
function namedVariables(
  projects: readonly (Project | undefined)[],
  fields: readonly (typeof CREDENTIAL_FIELDS)[number][],
): [string, string][] {
  return projects.flatMap((project) =>
    (project?.environments ?? []).flatMap((environment) =>
      fields.flatMap((field): [string, string][] => {
        const name = environment[field];
        return name === undefined
          ? []
          : [[name, `${field} of environment ${environment.name} in ${project?.file}`]];
      }),
    ),
  );
}

/**
 * Every environment's credential variables, in the projects given (the work tree's and the trusted
 * ref's), each with why it is one (the first reason found): `${NAME}` never reads them and
 * `variables:` never declares them, whichever environment a command selects.
 */
export function credentialVariables(projects: readonly (Project | undefined)[]): CredentialVariables {
  return new Map(namedVariables(projects, CREDENTIAL_FIELDS).reverse());
}

/** The variables whose values are secrets, of every environment of the projects given. */
export function secretVariables(projects: readonly (Project | undefined)[]): string[] {
  return [...new Set(namedVariables(projects, SECRET_FIELDS).map(([name]) => name))];
}

/** One side of the comparison: what a configuration says of the trusted parts. */
export interface TrustedParts {
  environments: readonly EnvironmentSpec[];
  config: Pick<LoadedConfig, 'declaredVariables' | 'state'>;
}

const shown = (value: unknown): string => printable(JSON.stringify(value ?? null));

/** `field: "a" -> "b"` for each field of `fields` that differs. */
function fieldChanges(
  subject: string,
  fields: readonly string[],
  trusted: Readonly<Record<string, unknown>>,
  work: Readonly<Record<string, unknown>>,
): TrustChange[] {
  return fields
    .filter((field) => shown(trusted[field]) !== shown(work[field]))
    .map((field) => ({ subject, change: `${field}: ${shown(trusted[field])} -> ${shown(work[field])}` }));
}

function connectionChanges(
  trusted: readonly EnvironmentSpec[],
  work: readonly EnvironmentSpec[],
): TrustChange[] {
  const changes: TrustChange[] = [];
  const workByName = new Map(work.map((environment) => [environment.name, environment]));
  for (const environment of trusted) {
    const subject = `environment ${environment.name}`;
    const other = workByName.get(environment.name);
    if (other === undefined) {
      changes.push({
        subject,
        change: 'removed from wafctl.yaml in the work tree (the trusted ref declares it)',
      });
    } else {
      for (const change of fieldChanges(subject, CONNECTION_FIELDS, { ...environment }, { ...other })) {
        changes.push(change);
      }
    }
  }
  const known = new Set(trusted.map((environment) => environment.name));
  for (const environment of work) {
    if (known.has(environment.name)) continue;
    changes.push({
      subject: `environment ${environment.name}`,
      change: 'declared only in the work tree: the trusted ref has no connection for it',
    });
  }
  return changes;
}

function variableChanges(trusted: ReadonlySet<string>, work: ReadonlySet<string>): TrustChange[] {
  const added = [...work].filter((name) => !trusted.has(name)).sort();
  const removed = [...trusted].filter((name) => !work.has(name)).sort();
  return [
    ...added.map((name) => ({
      subject: 'variables',
      change: `declares ${name}: not read (the trusted ref does not declare it)`,
    })),
    ...removed.map((name) => ({
      subject: 'variables',
      change: `no longer declares ${name} (the trusted ref does)`,
    })),
  ];
}

function policyChanges(trusted: TrustedParts['config'], work: TrustedParts['config']): TrustChange[] {
  const a = trusted.state.settings;
  const b = work.state.settings;
  const changes = [
    ...fieldChanges(
      'settings.firewall_actions',
      ACTION_CLASSES,
      actionLists(a.firewall_actions),
      actionLists(b.firewall_actions),
    ),
    ...fieldChanges('settings.safety', ['max_delete_percent', 'min_existing'], a.safety, b.safety),
  ];
  const kept = new Set([...Object.keys(trusted.state.expected), ...Object.keys(work.state.expected)]);
  for (const section of [...kept].sort()) {
    const before = trusted.state.expected[section] ?? {};
    const after = work.state.expected[section] ?? {};
    const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    for (const change of fieldChanges(section, fields, before, after)) changes.push(change);
  }
  const sections = new Set([...Object.keys(trusted.state.manage), ...Object.keys(work.state.manage)]);
  for (const section of [...sections].sort()) {
    const before = scopeFields((trusted.state.manage as Record<string, ManageScope>)[section]);
    const after = scopeFields((work.state.manage as Record<string, ManageScope>)[section]);
    const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    for (const change of fieldChanges(`manage.${section}`, fields, before, after)) changes.push(change);
  }
  return changes;
}

/** Each class's actions, compared as sets (the order a file lists them in means nothing). */
function actionLists(actions: FirewallActions): Record<string, string[]> {
  return Object.fromEntries(ACTION_CLASSES.map((klass) => [klass, [...actions[klass]].sort()]));
}

/** A scope's fields as compared: `prune`, and `match.<field>` globs sorted. */
function scopeFields(scope: ManageScope | undefined): Record<string, unknown> {
  const fields: Record<string, unknown> = { prune: scope?.prune ?? false };
  for (const [field, globs] of Object.entries(scope?.match ?? {}))
    fields[`match.${field}`] = [...globs].sort();
  return fields;
}

/** The longest value a test's change shows: a request body may be a megabyte, a plan line may not. */
const MAX_SHOWN = 200;

/** `shown`, cut to MAX_SHOWN characters (`…` says it was). */
function clipped(value: unknown): string {
  const text = shown(value);
  return text.length <= MAX_SHOWN ? text : `${text.slice(0, MAX_SHOWN)}…`;
}

/** A case's fields as compared: `request.path`, `expect.action`, ...; headers with their names sorted. */
function caseFields(test: LocatedTestCase): Record<string, unknown> {
  const headers = Object.fromEntries(
    Object.entries(test.request.headers).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  const request = { ...test.request, headers };
  return Object.fromEntries([
    ...Object.entries(request).map(([field, value]) => [`request.${field}`, value]),
    ...Object.entries(test.expect).map(([field, value]) => [`expect.${field}`, value]),
  ]);
}

/**
 * Each trusted test case the work tree removes or declares otherwise (its request or expectation:
 * where it is declared does not matter), one entry a case. The trusted case is run either way
 * (`gateTests`); a case only the work tree declares is no change of trust: it is run too.
 */
function testChanges(trusted: readonly LocatedTestCase[], work: readonly LocatedTestCase[]): TrustChange[] {
  const workByName = new Map(work.map((test) => [test.name, test]));
  return trusted.flatMap((test): TrustChange[] => {
    const subject = `test ${clipped(test.name)}`;
    const other = workByName.get(test.name);
    if (other === undefined) {
      return [{ subject, change: 'removed in the work tree (the trusted ref declares it: its case is run)' }];
    }
    const before = caseFields(test);
    const after = caseFields(other);
    const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    const changed = fields
      .filter((field) => shown(before[field]) !== shown(after[field]))
      .map((field) => `${field}: ${clipped(before[field])} -> ${clipped(after[field])}`);
    if (changed.length === 0) return [];
    return [
      { subject, change: `changed in the work tree (the trusted ref's case is run): ${changed.join('; ')}` },
    ];
  });
}

/**
 * What the work tree changes in the trusted parts: every environment's connection, the variables it
 * declares, and the policy and rule tests of the configuration being planned. None of it is used by
 * the plan.
 */
export function trustChanges(trusted: TrustedParts, work: TrustedParts): TrustChange[] {
  return [
    ...connectionChanges(trusted.environments, work.environments),
    ...variableChanges(trusted.config.declaredVariables, work.config.declaredVariables),
    ...policyChanges(trusted.config, work.config),
    ...testChanges(trusted.config.state.tests, work.config.state.tests),
  ];
}

/**
 * The tests that judge a plan with a trusted ref: every case the trusted ref declares, as it declares
 * it, then each case only the work tree declares (a pull request's new tests can only make the gate
 * stricter). A work tree's case of a trusted name is not run: its differences are trust changes.
 */
export function gateTests(
  trusted: readonly LocatedTestCase[],
  work: readonly LocatedTestCase[],
): LocatedTestCase[] {
  const names = new Set(trusted.map((test) => test.name));
  return [...trusted, ...work.filter((test) => !names.has(test.name))];
}

/** Whose rule tests a configuration judged by the trusted policy holds. */
export type TestsInForce = 'gate' | 'work tree';

/**
 * The work tree's configuration judged by the trusted policy: its `manage`, safety and action
 * classes, and its rule tests (`gateTests`); with `tests: 'work tree'`, the work tree's own cases,
 * as `wafctl test` (the developer's tool, not the gate) runs them.
 */
export function withTrustedPolicy(
  config: LoadedConfig,
  trusted: Pick<LoadedConfig, 'state'>,
  tests: TestsInForce = 'gate',
): LoadedConfig {
  const { settings, manage, expected } = trusted.state;
  return {
    ...config,
    state: {
      ...config.state,
      manage,
      expected,
      settings: {
        ...config.state.settings,
        safety: settings.safety,
        firewall_actions: settings.firewall_actions,
      },
      tests: tests === 'gate' ? gateTests(trusted.state.tests, config.state.tests) : config.state.tests,
    },
  };
}
