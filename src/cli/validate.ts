/**
 * `wafctl validate [PATH...] [--env NAME|all]... [--format text|json]`: offline checks, exit 0 valid,
 * 1 invalid. With environments declared in the root's wafctl.yaml, each selected environment's
 * merged configuration is validated (every environment when no --env is given: it is offline, so it
 * is safe) and reported under its name; exit 1 if any is invalid.
 */
import { Command, Option } from 'commander';
import { usageError } from '../core/errors.js';
import { plural } from '../core/text.js';
import type { Io } from './io.js';
import { addEnvironmentOption } from './options.js';
import { writeErr, writeOut } from './output.js';
import type { TrustFlags } from './workspace.js';

interface ValidateFlags extends TrustFlags {
  format: 'text' | 'json';
  env: string[];
}

export function validateCommand(io: Io, done: (code: number) => void): Command {
  return addEnvironmentOption(
    new Command('validate')
      .description(
        'check configuration files offline: syntax, schema and semantic rules. With environments declared in wafctl.yaml at the configuration root, validates every environment (or those --env selects)',
      )
      .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
      .addOption(new Option('--format <FORMAT>', 'output format').choices(['text', 'json']).default('text')),
    'validate this environment of wafctl.yaml (repeatable; "all": every one, the default when environments are declared)',
  ).action(async (paths: string[], flags: ValidateFlags) => done(await validate(paths, flags, io)));
}

/** What one configuration's validation gives: the JSON object and the text line, or the error. */
type Outcome =
  | { valid: true; json: Record<string, unknown>; text: string }
  | { valid: false; json: Record<string, unknown>; text: string };

async function outcomeOf(load: () => Promise<import('../config/validate-sources.js').LoadedConfig>) {
  const { ConfigError } = await import('../config/problems.js');
  try {
    const { state, files } = await load();
    const { declaredObjects } = await import('../config/schema.js');
    const { KINDS } = await import('../kinds/index.js');
    const { countOf } = await import('../ops/export/document.js');
    const families = KINDS.map((kind) => ({ kind, count: declaredObjects(state, kind).length }));
    const counts = families.map(({ kind, count }) => [kind.section, count]);
    // A singleton section (settings) is named when declared, not counted.
    const shown = families
      .filter(({ kind, count }) => !kind.singleton || count > 0)
      .map(({ kind, count }) =>
        kind.singleton ? kind.section.replaceAll('_', ' ') : countOf(kind.section, count),
      );
    return {
      valid: true,
      json: { valid: true, files: files.length, ...Object.fromEntries(counts) },
      text: `Configuration is valid: ${[plural(files.length, 'file'), ...shown].join(', ')}.`,
    } satisfies Outcome;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const skipped = error.skipped.length === 0 ? {} : { skipped: error.skipped };
    return {
      valid: false,
      json: { valid: false, problems: error.problems, ...skipped },
      text: error.message,
    } satisfies Outcome;
  }
}

function print(io: Io, outcome: Outcome, format: ValidateFlags['format']): number {
  if (format === 'json') writeOut(io, JSON.stringify(outcome.json));
  else if (outcome.valid) writeOut(io, outcome.text);
  else writeErr(io, outcome.text);
  return outcome.valid ? 0 : 1;
}

async function validate(paths: string[], flags: ValidateFlags, io: Io): Promise<number> {
  // Heavy modules (yaml, zod) load here, not at start-up: `wafctl --version` stays fast.
  const { PROJECT_FILE, ALL_ENVIRONMENTS } = await import('../config/project.js');
  const { openWorkspace, loadWorkspaceConfig } = await import('./workspace.js');
  const { ConfigError } = await import('../config/problems.js');
  let workspace: import('./workspace.js').Workspace;
  try {
    workspace = await openWorkspace(io, paths, flags);
  } catch (error) {
    // An invalid `environments:` is reported as any invalid configuration is.
    if (!(error instanceof ConfigError)) throw error;
    return print(io, await outcomeOf(() => Promise.reject(error)), flags.format);
  }
  const { project, root } = workspace;
  // With a trusted ref, read with its `variables` allow-list (workspace.ts).
  const load = async (environment?: import('../config/project.js').EnvironmentSpec) =>
    (await loadWorkspaceConfig(io, workspace, { paths, environment })).config;
  if (project === undefined) {
    if (flags.env.length > 0) {
      throw usageError(
        `--env selects environments of ${PROJECT_FILE} at the configuration root (${root}), which declares none`,
      );
    }
    return print(io, await outcomeOf(() => load()), flags.format);
  }
  const names = project.environments.map((environment) => environment.name);
  const given = paths.length === 0 ? ['.'] : paths;
  if (given.length !== 1 || given[0] !== root) {
    throw usageError(
      `${project.file} declares environments (${names.join(', ')}), which read their own paths: give the configuration root as PATH (or none), not ${given.join(' ')}`,
    );
  }
  const unknown = flags.env.filter((name) => name !== ALL_ENVIRONMENTS && !names.includes(name));
  if (unknown.length > 0) {
    throw usageError(
      `unknown environment ${unknown.map((name) => JSON.stringify(name)).join(', ')}: ${project.file} declares ${names.join(', ')} (or --env ${ALL_ENVIRONMENTS})`,
    );
  }
  const every = flags.env.length === 0 || flags.env.includes(ALL_ENVIRONMENTS);
  const selected = project.environments.filter(
    (environment) => every || flags.env.includes(environment.name),
  );
  const outcomes: [string, Outcome][] = [];
  // One at a time: each environment reads its own files, and the output keeps the declared order.
  for (const environment of selected) {
    outcomes.push([environment.name, await outcomeOf(() => load(environment))]);
  }
  if (flags.format === 'json') {
    const valid = outcomes.every(([, outcome]) => outcome.valid);
    const environments = Object.fromEntries(outcomes.map(([name, outcome]) => [name, outcome.json]));
    writeOut(io, JSON.stringify({ valid, environments }));
    return valid ? 0 : 1;
  }
  for (const [name, outcome] of outcomes) {
    if (outcome.valid) writeOut(io, `${name}: ${outcome.text}`);
    else
      writeErr(
        io,
        outcome.text
          .split('\n')
          .map((line) => `${name}: ${line}`)
          .join('\n'),
      );
  }
  return outcomes.every(([, outcome]) => outcome.valid) ? 0 : 1;
}
