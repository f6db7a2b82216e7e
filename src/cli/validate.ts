/**
 * `wafctl validate [PATH...] [--env NAME|all]... [--format text|json] [--strict]`: offline checks,
 * exit 0 valid, 1 invalid. The rule lint's findings are warnings (stderr, `FILE:LINE:COL: warning:
 * ...`), which `--strict` makes errors. With environments declared in the root's wafctl.yaml, each
 * selected environment's merged configuration is validated (every environment when no --env is
 * given: it is offline, so it is safe) and reported under its name; exit 1 if any is invalid.
 */
import { Command, Option } from 'commander';
import type { EnvironmentValidation, ValidationOutcome } from '../ops/validate/validate.js';
import type { Io } from './io.js';
import { addFleetOptions, type FleetFlags } from './options.js';
import { writeErr, writeOut } from './output.js';
import type { TrustFlags } from './workspace.js';

interface ValidateFlags extends TrustFlags, FleetFlags {
  format: 'text' | 'json';
  env: string[];
  strict?: boolean;
}

/** `wafctl validate`'s options and help; `done` is given the exit code. */
export function validateCommand(io: Io, done: (code: number) => void): Command {
  return addFleetOptions(
    new Command('validate')
      .description(
        'check configuration files offline: syntax, schema and semantic rules. With environments declared in wafctl.yaml at the configuration root, validates every environment (or those --env selects)',
      )
      .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
      .addOption(new Option('--format <FORMAT>', 'output format').choices(['text', 'json']).default('text'))
      .option(
        '--strict',
        'make the rule lint warnings (shadowed, identical, matches_empty rules) errors: exit 1',
      ),
    "validate these environments of wafctl.yaml: a name, a glob ('prod-*': * any run, ? one character) or all, the default when environments are declared; repeatable",
  ).action(async (paths: string[], flags: ValidateFlags) => done(await validate(paths, flags, io)));
}

/** One outcome as text: its warnings on stderr, then its text, each line after `prefix`. */
function printText(io: Io, outcome: ValidationOutcome, prefix = ''): void {
  const prefixed = (text: string) =>
    text
      .split('\n')
      .map((line) => `${prefix}${line}`)
      .join('\n');
  if (outcome.warnings.length > 0) writeErr(io, prefixed(outcome.warnings.join('\n')));
  if (outcome.json.valid) writeOut(io, prefixed(outcome.text));
  else writeErr(io, prefixed(outcome.text));
}

function print(io: Io, outcome: ValidationOutcome, format: ValidateFlags['format']): number {
  if (format === 'json') writeOut(io, JSON.stringify(outcome.json));
  else printText(io, outcome);
  return outcome.json.valid ? 0 : 1;
}

/** Each environment's outcome, under its name: one JSON document, or its lines prefixed with the name. */
async function printEnvironments(
  io: Io,
  validations: readonly EnvironmentValidation[],
  format: ValidateFlags['format'],
): Promise<number> {
  const valid = validations.every(({ outcome }) => outcome.json.valid);
  const { environmentsJson, validationSummary } = await import('../ops/validate/validate.js');
  if (format === 'json') {
    writeOut(io, JSON.stringify(environmentsJson(validations)));
    return valid ? 0 : 1;
  }
  if (validations.length > 1) {
    const { textSummaryTable } = await import('../plan/render/environments.js');
    const rows = validations.map(({ name, outcome }) => ({ name, summary: validationSummary(outcome) }));
    writeOut(io, textSummaryTable(rows));
  }
  for (const { name, outcome } of validations) printText(io, outcome, `${name}: `);
  return valid ? 0 : 1;
}

async function validate(paths: string[], flags: ValidateFlags, io: Io): Promise<number> {
  // Heavy modules (yaml, zod) load here, not at start-up: `wafctl --version` stays fast.
  const { ALL_ENVIRONMENTS } = await import('../config/project.js');
  const { openWorkspace, loadWorkspaceConfig } = await import('./workspace.js');
  const { ConfigError } = await import('../config/problems.js');
  const { validationOf, validateEnvironments } = await import('../ops/validate/validate.js');
  const { noEnvironments } = await import('../ops/project.js');
  let workspace: import('./workspace.js').Workspace;
  try {
    workspace = await openWorkspace(io, paths, flags);
  } catch (error) {
    // An invalid `environments:` is reported as any invalid configuration is.
    if (!(error instanceof ConfigError)) throw error;
    return print(io, await validationOf(() => Promise.reject(error), flags), flags.format);
  }
  const { project, root } = workspace;
  // With a trusted ref, read with its `variables` allow-list (workspace.ts).
  const load = async (environment?: import('../config/project.js').EnvironmentSpec) =>
    (await loadWorkspaceConfig(io, workspace, { paths, environment })).config;
  if (project === undefined) {
    if (flags.env.length > 0) throw noEnvironments(root, '--env');
    return print(io, await validationOf(() => load(), flags), flags.format);
  }
  // Offline, so every environment when none is named.
  const { fleetSelection } = await import('./environments.js');
  const given = flags.env.length === 0 ? [ALL_ENVIRONMENTS] : flags.env;
  const selection = await fleetSelection(
    io,
    workspace,
    paths,
    flags,
    { option: '--env', needed: '' },
    { given },
  );
  const names = selection?.names ?? [];
  const selected = project.environments.filter((environment) => names.includes(environment.name));
  return printEnvironments(io, await validateEnvironments(selected, load, flags), flags.format);
}
