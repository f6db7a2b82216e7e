/**
 * An `Io` made of strings, for running commands in the test's own process: stdout and stderr are
 * captured, stdin is a given text, and signals are delivered by the test.
 */
import { PassThrough, Readable, Writable } from 'node:stream';
import type { Clock } from '../../src/api/index.js';
import type { InterruptSignal, Io } from '../../src/cli/io.js';

export interface TestIoOptions {
  /** The whole environment the command sees (nothing of the test process's leaks in). */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** What stdin holds; it ends after it, unless stdin is a terminal (`tty`). */
  input?: string;
  /** Whether stdin and stdout claim to be a terminal. */
  tty?: boolean;
  /** The run's clock (`Io.clock`): a `timer` of its own is `apply --wait`'s deadline. */
  clock?: Io['clock'];
}

export interface TestIo {
  io: Io;
  stdout(): string;
  stderr(): string;
  /** Delivers SIGINT or SIGTERM to the handlers the command installed. */
  signal(signal: InterruptSignal): void;
  /** The code `io.exit` was called with, if it was. */
  exitCode(): number | undefined;
  /** Resolves with stdout once it matches `pattern` (a command that runs until signalled). */
  stdoutMatches(pattern: RegExp): Promise<string>;
}

class Captured extends Writable {
  text = '';
  readonly waiting = new Set<() => void>();
  constructor(readonly isTTY: boolean) {
    super({ decodeStrings: false });
  }
  override _write(chunk: string | Buffer, _encoding: string, done: () => void): void {
    this.text += String(chunk);
    for (const check of this.waiting) check();
    done();
  }
}

/**
 * The API client's clock for tests of retries: a backoff or Retry-After wait returns at once (and
 * is recorded), so a test of faults never sleeps for the client's default delays. Deadlines still
 * run on real time: a test that wants one sets a short `--timeout` of its own.
 */
export function instantClock(): Partial<Clock> & { sleeps: number[] } {
  const sleeps: number[] = [];
  return {
    sleeps,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  };
}

export class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`io.exit(${code}) was called`);
  }
}

export function testIo(options: TestIoOptions = {}): TestIo {
  const stdout = new Captured(options.tty === true);
  const stderr = new Captured(false);
  // A terminal's stdin stays open (the person has not typed yet); a pipe ends after its text.
  const terminal = new PassThrough();
  if (options.input !== undefined) terminal.write(options.input);
  const stdin = Object.assign(options.tty === true ? terminal : Readable.from([options.input ?? '']), {
    isTTY: options.tty === true,
  });
  const handlers = new Set<(signal: InterruptSignal) => void>();
  let exited: number | undefined;
  const io: Io = {
    stdout,
    stderr,
    stdin,
    env: { NO_COLOR: '1', ...options.env },
    cwd: options.cwd ?? process.cwd(),
    clock: options.clock,
    onSignal(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    exit(code) {
      exited = code;
      throw new ExitCalled(code);
    },
  };
  return {
    io,
    stdout: () => stdout.text,
    stderr: () => stderr.text,
    signal: (signal) => {
      for (const handler of [...handlers]) handler(signal);
    },
    exitCode: () => exited,
    stdoutMatches: (pattern) =>
      new Promise((resolve) => {
        const check = () => {
          if (!pattern.test(stdout.text)) return;
          stdout.waiting.delete(check);
          resolve(stdout.text);
        };
        stdout.waiting.add(check);
        check();
      }),
  };
}
