/** Command-line flags of the benchmark harness: sizes, latency, which scenarios, and the quick preset. */
import { parseArgs } from 'node:util';
import type { ApplicationRuleListShape } from '../src/emulator/index.js';

export const SCENARIO_NAMES = [
  'plan',
  'apply-create',
  'apply-update',
  'apply-delete',
  'planner',
  'cold-start',
  'emulator-page',
  'rule-tests',
  'fleet',
] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export interface BenchOptions {
  /** Added by the emulator to every API request, in milliseconds. */
  latencyMs: number;
  /** The plan scenario's live firewall (and configuration). */
  rules: number;
  groups: number;
  notifications: number;
  schedules: number;
  /** Rules created, updated and deleted by each apply scenario. */
  apply: number;
  /** Objects on each side (desired and remote) of the in-memory planner scenario. */
  planner: number;
  /** Spawns of `wafctl --version`; the median is reported. */
  runs: number;
  /** Rule-tests scenario: application rules, and as many requests decided. */
  ruleTests: number;
  /** Fleet scenario: environments (one emulator each), the smaller fleet it is compared with, rules each. */
  fleet: number;
  fleetSmall: number;
  fleetRules: number;
  scenarios: ScenarioName[];
  baseline: boolean;
  quick: boolean;
  /** Application-rule list rows: 'full' (the emulator's default) or 'single-action' (must be hydrated). */
  listShape: ApplicationRuleListShape;
}

const FULL = {
  rules: 10_000,
  groups: 200,
  notifications: 200,
  schedules: 1_000,
  apply: 1_000,
  planner: 100_000,
  runs: 11,
  ruleTests: 10_000,
  fleet: 200,
  fleetSmall: 20,
  fleetRules: 500,
};
/** Small enough for CI (the whole `npm run bench -- --quick` stays well under a minute on 2 cores). */
const QUICK = {
  rules: 1_000,
  groups: 20,
  notifications: 20,
  schedules: 100,
  apply: 200,
  planner: 10_000,
  runs: 5,
  ruleTests: 1_000,
  fleet: 20,
  fleetSmall: 10,
  fleetRules: 50,
};

export const USAGE = `Usage: npm run bench -- [options]

  --quick                 small sizes for a CI smoke run
  --latency MS            latency the emulator adds to every API request (default 20)
  --rules N               plan scenario: application rules (default ${FULL.rules}, quick ${QUICK.rules})
  --groups N              plan scenario: groups (default ${FULL.groups}, quick ${QUICK.groups})
  --notifications N       plan scenario: notifications (default ${FULL.notifications}, quick ${QUICK.notifications})
  --schedules N           plan scenario: report schedules (default ${FULL.schedules}, quick ${QUICK.schedules})
  --apply N               apply scenarios: rules created, updated, deleted (default ${FULL.apply}, quick ${QUICK.apply})
  --planner N             planner scenario: objects on each side (default ${FULL.planner}, quick ${QUICK.planner})
  --runs N                cold-start scenario: spawns of \`wafctl --version\` (default ${FULL.runs}, quick ${QUICK.runs})
  --rule-tests N          rule-tests scenario: N rules and N requests decided (default ${FULL.ruleTests}, quick ${QUICK.ruleTests})
  --fleet N               fleet scenario: environments, one emulator each (default ${FULL.fleet}, quick ${QUICK.fleet});
                          its peak RSS is compared with a fleet of ${FULL.fleetSmall} (quick ${QUICK.fleetSmall}, at most N)
  --fleet-rules N         fleet scenario: application rules per environment (default ${FULL.fleetRules}, quick ${QUICK.fleetRules})
  --scenario NAME         run only this scenario (repeatable): ${SCENARIO_NAMES.join(', ')}
  --list-shape SHAPE      application-rule list rows: full (default) or single-action, where every
                          listed rule must be read again with GET-one (the spec's strictest reading)
  --no-baseline           skip the per-resource baseline runs
  --help                  show this text
`;

export class UsageError extends Error {}

/**
 * A bench entry point's options from its command line, or undefined when it should stop: after
 * `--help` (the usage on stdout), or after a usage error (the message and the usage on stderr, exit
 * code 1). Other errors are thrown.
 */
export function readOptions<T>(
  program: string,
  usage: string,
  parse: (argv: string[]) => T | undefined,
): T | undefined {
  try {
    const options = parse(process.argv.slice(2));
    if (options === undefined) process.stdout.write(usage);
    return options;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${program}: ${error.message}\n\n${usage}`);
    process.exitCode = 1;
    return undefined;
  }
}

/** `--NAME N`: an integer of at least `min`, or `fallback` when the flag is absent. */
export function integerFlag(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`--${name} must be an integer >= ${min}, got '${raw}'`);
  }
  return value;
}

/** Undefined when `--help` was asked for. */
export function parseOptions(argv: readonly string[]): BenchOptions | undefined {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (values.help) return undefined;
  const preset = values.quick ? QUICK : FULL;
  const listShape = values['list-shape'] ?? 'full';
  if (listShape !== 'full' && listShape !== 'single-action') {
    throw new UsageError(`--list-shape must be full or single-action, got '${listShape}'`);
  }
  const scenarios = (values.scenario ?? []).map((name) => {
    if (!(SCENARIO_NAMES as readonly string[]).includes(name)) {
      throw new UsageError(`unknown scenario '${name}': expected one of ${SCENARIO_NAMES.join(', ')}`);
    }
    return name as ScenarioName;
  });
  return {
    latencyMs: integerFlag('latency', values.latency, 20, 0),
    rules: integerFlag('rules', values.rules, preset.rules, 0),
    groups: integerFlag('groups', values.groups, preset.groups, 0),
    notifications: integerFlag('notifications', values.notifications, preset.notifications, 0),
    schedules: integerFlag('schedules', values.schedules, preset.schedules, 0),
    apply: integerFlag('apply', values.apply, preset.apply, 1),
    planner: integerFlag('planner', values.planner, preset.planner, 1),
    runs: integerFlag('runs', values.runs, preset.runs, 1),
    ruleTests: integerFlag('rule-tests', values['rule-tests'], preset.ruleTests, 1),
    ...fleetSizes(values.fleet, values['fleet-rules'], preset),
    scenarios: scenarios.length > 0 ? scenarios : [...SCENARIO_NAMES],
    baseline: !values['no-baseline'],
    quick: values.quick ?? false,
    listShape,
  };
}

/** `--fleet N` and `--fleet-rules N`; the smaller fleet is the preset's, or N when N is smaller. */
function fleetSizes(
  environments: string | undefined,
  rules: string | undefined,
  preset: typeof FULL,
): Pick<BenchOptions, 'fleet' | 'fleetSmall' | 'fleetRules'> {
  const fleet = integerFlag('fleet', environments, preset.fleet, 1);
  return {
    fleet,
    fleetSmall: Math.min(preset.fleetSmall, fleet),
    fleetRules: integerFlag('fleet-rules', rules, preset.fleetRules, 0),
  };
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      quick: { type: 'boolean' },
      latency: { type: 'string' },
      rules: { type: 'string' },
      groups: { type: 'string' },
      notifications: { type: 'string' },
      schedules: { type: 'string' },
      apply: { type: 'string' },
      planner: { type: 'string' },
      runs: { type: 'string' },
      'rule-tests': { type: 'string' },
      fleet: { type: 'string' },
      'fleet-rules': { type: 'string' },
      scenario: { type: 'string', multiple: true },
      'list-shape': { type: 'string' },
      'no-baseline': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
}
