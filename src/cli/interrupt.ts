/**
 * SIGINT/SIGTERM. `layeredSignals` gives them a meaning for the phase a run is in; by default the
 * run stops at once, saying so. While apply writes (`interruptOnSignals`), the first one aborts the
 * applier's signal: it starts no new call, lets the calls in flight finish and completes started
 * replacements (src/ops/apply/order.ts says what stopping means); the command then prints its report
 * and exits 130 (SIGINT) or 143 (SIGTERM), the codes a shell gives a process killed by them. A
 * second signal exits at once.
 *
 * Node runs a signal's handler only when no JavaScript is running, so long CPU work pauses between
 * its pieces: loading configuration pauses between files (config/load.ts, `loadHooks`), where the
 * default handler stops the run, and stops there itself once `Io.interrupted` is aborted.
 */
import type { LoadOptions } from '../config/load.js';
import type { Interruption } from '../ops/apply/workflow.js';
import { SIGNAL_EXIT_CODES } from '../ops/defaults.js';
import { Interrupted, type InterruptSignal, type Io } from './io.js';
import { writeErr } from './output.js';
import { debugEnabled } from './report-error.js';

type SignalHandler = (signal: InterruptSignal) => void;

/** Outside an apply's writes: one line, and the signal's exit code at once. */
export function stopAtOnce(io: Io, signal: InterruptSignal): never {
  writeErr(io, `\nInterrupted (${signal}): stopped; the firewall was not changed.`);
  return io.exit(SIGNAL_EXIT_CODES[signal]);
}

/**
 * A run's signal handling, in layers: SIGINT/SIGTERM go to the handler added last (and not removed
 * yet), so a command says what an interrupt means in the phase it is in: the prompt cancels, an
 * apply's writes stop cleanly (`interruptOnSignals`), the emulator shuts down. Outside those phases
 * the run stops at once with one line: nothing wafctl does there changes the firewall.
 */
export function layeredSignals(io: Io): { io: Io; dispose(): void } {
  const layers: SignalHandler[] = [];
  const interrupted = new AbortController();
  const dispose = io.onSignal((signal) => {
    interrupted.abort(new Interrupted(signal)); // the first signal's reason stays
    (layers.at(-1) ?? ((received: InterruptSignal) => stopAtOnce(io, received)))(signal);
  });
  const layered: Io = {
    ...io,
    interrupted: interrupted.signal,
    onSignal(handler) {
      layers.push(handler);
      return () => {
        const at = layers.lastIndexOf(handler);
        if (at >= 0) layers.splice(at, 1);
      };
    },
  };
  return { io: layered, dispose };
}

/**
 * What a configuration load takes from the run: its interrupt, checked between files, and with
 * WAFCTL_DEBUG=1 a debug line as each file is validated (a test signals a run in that phase).
 */
export function loadHooks(io: Io): Pick<LoadOptions, 'signal' | 'log'> {
  return {
    signal: io.interrupted,
    log: debugEnabled(io) ? (line) => writeErr(io, `load: ${line}`) : undefined,
  };
}

/** While an apply writes: the first SIGINT/SIGTERM aborts the writes' signal, a second exits at once. */
export function interruptOnSignals(io: Io): Interruption {
  const controller = new AbortController();
  let first: InterruptSignal | undefined;
  const dispose = io.onSignal((signal) => {
    if (first !== undefined) {
      writeErr(
        io,
        `\nInterrupt received again (${signal}): exiting at once. Calls in flight may or may not have been carried out; run \`wafctl apply\` again: it re-reads the firewall and repairs what this run left (duplicates included).`,
      );
      io.exit(SIGNAL_EXIT_CODES[signal]);
    }
    first = signal;
    writeErr(
      io,
      `\nInterrupt received (${signal}): stopping. No new call is started; the calls in flight and the replacements they started are completed. Send it again to exit at once.`,
    );
    controller.abort();
  });
  return {
    signal: controller.signal,
    exitCode: () => (first === undefined ? undefined : SIGNAL_EXIT_CODES[first]),
    dispose,
  };
}
