/**
 * `wafctl get KIND [ID_OR_NAME] [--filter NAME=VALUE...] [--limit N] [--output table|json|yaml]`:
 * read commands over the live API, a table for people and whole records for scripts.
 */
import { Command, Option } from 'commander';
import { usageError } from '../core/errors.js';
import { HYDRATION_CONCURRENCY } from '../ops/defaults.js';
import type { Io } from './io.js';
import {
  addConnectionOptions,
  addEnvironmentOption,
  type ConnectionFlags,
  FAMILIES,
  parsePositiveInt,
} from './options.js';
import { colorEnabled, writeErr, writeOut } from './output.js';
import type { TrustFlags } from './workspace.js';

type OutputFormat = 'table' | 'json' | 'yaml';

interface GetFlags extends ConnectionFlags, TrustFlags {
  env: string[];
  filter?: string[];
  limit?: number;
  output: OutputFormat;
  color?: boolean;
}

/** The API's largest useful page (the emulator's cap; bigger asks are served at it anyway). */
const MAX_PAGE_SIZE = 1000;

/** `wafctl get`'s arguments, options and help; `done` is given the exit code. */
export function getCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addEnvironmentOption(
      new Command('get'),
      "read this environment's firewall (wafctl.yaml in the current directory)",
    )
      .description('list or show live objects of one kind (the read-only rules, or a family)')
      .argument('<KIND>', `rules, or one of: ${FAMILIES}`)
      .argument('[ID_OR_NAME]', 'one object: by id, or by name for a kind keyed by name')
      .option('--filter <NAME=VALUE...>', 'API filters (list filters take comma-separated values)')
      .option('--limit <N>', 'stop after N objects', parsePositiveInt('--limit'))
      .addOption(
        new Option('--output <FORMAT>', 'output format').choices(['table', 'json', 'yaml']).default('table'),
      ),
  ).action(async (kindName: string, idOrName: string | undefined, _flags: GetFlags, command: Command) =>
    done(await get(kindName, idOrName, command.optsWithGlobals<GetFlags>(), io)),
  );
}

async function get(kindName: string, idOrName: string | undefined, flags: GetFlags, io: Io): Promise<number> {
  const { resolveGetKind } = await import('../ops/get/kinds.js');
  const { parseFilterArgs, listRecords } = await import('../ops/get/listing.js');
  const { parseFilterStrings } = await import('../api/filters.js');
  const { getRecord } = await import('../ops/get/lookup.js');
  const { renderRecord, renderRecords } = await import('../ops/get/render.js');
  const { withApiClient } = await import('./connection.js');

  // Usage errors come before any connection.
  const kind = resolveGetKind(kindName);
  if (idOrName !== undefined && (flags.filter !== undefined || flags.limit !== undefined)) {
    throw usageError('--filter and --limit apply to listings, not to one object: drop ID_OR_NAME or them');
  }
  const filters = parseFilterArgs(flags.filter ?? []);
  parseFilterStrings(kind, filters);
  const render = { color: flags.output === 'table' && colorEnabled(io, flags.color) };
  const { selectEnvironment } = await import('./environments.js');
  const selected = await selectEnvironment(io, ['.'], flags, 'get');

  // With `--limit N` the listing asks for pages of N rows, one page at a time: reading stops after
  // the first N rows instead of fetching pages ahead that would be thrown away.
  const paging =
    flags.limit === undefined ? {} : { pageSize: Math.min(flags.limit, MAX_PAGE_SIZE), concurrency: 1 };
  await withApiClient(
    io,
    flags,
    async (api) => {
      if (idOrName !== undefined) {
        writeOut(io, renderRecord(kind, await getRecord(api, kind, idOrName), flags.output, render));
        return;
      }
      const records = await listRecords(api, kind, {
        filters,
        ...(flags.limit === undefined ? {} : { limit: flags.limit }),
        full: flags.output !== 'table',
        concurrency: HYDRATION_CONCURRENCY,
      });
      if (records.length === 0 && flags.output === 'table') {
        writeErr(io, `No ${kind} found.`);
        return;
      }
      writeOut(io, renderRecords(kind, records, flags.output, render));
    },
    { ...paging, environment: selected?.connection },
  );
  return 0;
}
