#!/usr/bin/env node
/** The only module that touches `process`: it hands the real streams, environment and signals to a run. */
import type { InterruptSignal, Io } from './io.js';
import { runWafctl } from './program.js';

// A reader that goes away (`wafctl get rules | head`) must neither crash wafctl with a stack trace nor
// cut an apply short: what is written after that is dropped, and the command runs to its end.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

const io: Io = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  cwd: process.cwd(),
  onSignal(handler) {
    const listeners = (['SIGINT', 'SIGTERM'] as const).map((signal) => {
      const listener = () => handler(signal satisfies InterruptSignal);
      process.on(signal, listener);
      return () => process.off(signal, listener);
    });
    return () => {
      for (const remove of listeners) remove();
    };
  },
  exit: (code) => process.exit(code),
};

process.exitCode = await runWafctl(process.argv.slice(2), io);
