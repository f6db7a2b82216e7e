/**
 * `npm run bench`: wafctl against an in-process emulator with injected latency, next to a
 * per-resource baseline on the same data, in the same run. Prints a table, the details behind it and
 * the targets of issue 8. Exits 1 only when a run is broken (wrong counts, errors), never for time.
 */
import { cpus } from 'node:os';
import { type BenchOptions, parseOptions, readOptions, USAGE } from './options.js';
import { details, resultsTable, targetsTable } from './report.js';
import { runScenario, type ScenarioResult } from './scenarios.js';

function describeRun(options: BenchOptions): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return [
    `wafctl benchmark${options.quick ? ' (--quick)' : ''}: node ${process.version}, ${cpus().length} x ${cpu}`,
    `emulator latency ${options.latencyMs} ms per request, application-rule list rows '${options.listShape}'; baseline: per-resource calls, 10 in flight`,
  ].join('\n');
}

async function main(): Promise<void> {
  const options = readOptions('bench', USAGE, parseOptions);
  if (options === undefined) return;
  process.stdout.write(`${describeRun(options)}\n\n`);
  const results: ScenarioResult[] = [];
  for (const name of options.scenarios) {
    process.stderr.write(`bench: ${name}...\n`);
    const started = performance.now();
    results.push(await runScenario(name, options));
    process.stderr.write(`bench: ${name} done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  }
  process.stdout.write(
    `${resultsTable(results)}\n\n${details(results)}\n\n${targetsTable(results, options)}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
