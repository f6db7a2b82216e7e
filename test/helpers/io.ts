/**
 * An `Io` made of strings, for running commands in the test's own process: stdout and stderr are
 * captured, stdin is a given text, and signals are delivered by the test.
 */
import { Readable, Writable } from 'node:stream';
import type { Clock } from '../../src/api/index.js';
import type { InterruptSignal, Io } from '../../src/cli/io.js';

export interface TestIoOptions {
  /** The whole environment the command sees (nothing of the test process's leaks in). */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** What stdin holds; it ends after it. */
  input?: string;
  /** Whether stdin and stdout claim to be a terminal. */
  tty?: boolean;
  clock?: Partial<Clock>;
}

export interface TestIo {
  io: Io;
  stdout(): string;
  stderr(): string;
  /** Delivers SIGINT or SIGTERM to the handlers the command installed. */
  signal(signal: InterruptSignal): void;
  /** The code `io.exit` was called with, if it was. */
  exitCode(): number | undefined;
}

class Captured extends Writable {
  text = '';
  constructor(readonly isTTY: boolean) {
    super({ decodeStrings: false });
  }
  override _write(chunk: string | Buffer, _encoding: string, done: () => void): void {
    this.text += String(chunk);
    done();
  }
}

export class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`io.exit(${code}) was called`);
  }
}

export function testIo(options: TestIoOptions = {}): TestIo {
  const stdout = new Captured(options.tty === true);
  const stderr = new Captured(false);
  const stdin = Object.assign(Readable.from([options.input ?? '']), { isTTY: options.tty === true });
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
  };
}
