/**
 * Commands of the contract whose implementation has not landed yet. They are declared with their
 * contract flags so `--help` is already the full, accurate reference; running one says plainly that
 * it is not available and exits 1. Each moves to its own file in src/cli/ when it lands.
 */
import { Command, Option } from 'commander';
import { WafctlError } from '../errors.js';
import { addConnectionOptions } from './options.js';

function notAvailable(name: string): () => never {
  return () => {
    throw new WafctlError('NOT_AVAILABLE', `'wafctl ${name}' is not available in this version yet.`);
  };
}

export function pendingCommands(): Command[] {
  const exportCmd = addConnectionOptions(
    new Command('export')
      .description('write the live state as YAML configuration that plans to no changes')
      .option('--dir <DIR>', 'write one file per kind into DIR instead of stdout')
      .option('--kind <KIND...>', 'only these kinds'),
  ).action(notAvailable('export'));

  const get = addConnectionOptions(
    new Command('get')
      .description('list or show live objects: groups, rules, application-rules, notifications, schedules')
      .argument('<KIND>', 'groups | rules | application-rules | notifications | schedules')
      .argument('[ID_OR_NAME]', 'one object')
      .option('--filter <NAME=VALUE...>', 'API filters (list filters take comma-separated values)')
      .addOption(
        new Option('--output <FORMAT>', 'output format').choices(['table', 'json', 'yaml']).default('table'),
      ),
  ).action(notAvailable('get'));

  return [exportCmd, get];
}
