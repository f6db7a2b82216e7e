/**
 * SIGINT/SIGTERM while apply writes. The first one aborts the applier's signal: it starts no new
 * call, lets the calls in flight finish and completes started replacements (src/ops/apply/order.ts
 * says what stopping means); the command then prints its report and exits 130 (SIGINT) or 143
 * (SIGTERM), the codes a shell gives a process killed by them. A second signal exits at once.
 */
import { writeErr } from './output.js';

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;
type HandledSignal = keyof typeof EXIT_CODES;

export interface Interruption {
  signal: AbortSignal;
  /** The exit code of the first signal received, if one was. */
  exitCode(): number | undefined;
  /** Removes the handlers: signals take their default effect again. */
  dispose(): void;
}

export function interruptOnSignals(): Interruption {
  const controller = new AbortController();
  let first: HandledSignal | undefined;
  const onSignal = (signal: HandledSignal) => {
    if (first !== undefined) {
      writeErr(
        `\nInterrupt received again (${signal}): exiting at once. Calls in flight may or may not have been carried out; run \`wafctl apply\` again: it re-reads the firewall and repairs what this run left (duplicates included).`,
      );
      process.exit(EXIT_CODES[signal]);
    }
    first = signal;
    writeErr(
      `\nInterrupt received (${signal}): stopping. No new call is started; the calls in flight and the replacements they started are completed. Send it again to exit at once.`,
    );
    controller.abort();
  };
  for (const signal of Object.keys(EXIT_CODES) as HandledSignal[]) process.on(signal, onSignal);
  return {
    signal: controller.signal,
    exitCode: () => (first === undefined ? undefined : EXIT_CODES[first]),
    dispose() {
      for (const signal of Object.keys(EXIT_CODES) as HandledSignal[]) process.off(signal, onSignal);
    },
  };
}
