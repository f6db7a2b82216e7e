/** Runs a program for the action (wafctl, npx or git), its streams sent where the step needs them. */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { constants } from 'node:os';
import { inputVariable } from './inputs.js';
import { errorAnnotation } from './workflow.js';

/** Where a child's stream goes: the step's log, a file, the log and a copy kept, or a copy only. */
export type Sink = 'log' | 'tee' | 'capture' | { file: string };

/** A program's outcome, and what it printed (each at most KEEP characters kept). */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they arrived, for the job summary. */
  log: string;
}

/** The step's own streams, where `log` and `tee` go. */
export interface StepStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** The most of a stream kept in memory for the job summary. */
const KEEP = 4 * 1024 * 1024;

/**
 * Runs wafctl (or git) once; a failure to start it (npx missing) is exit 1 with an error annotation.
 */
export function runProgram(
  [program, prefix]: [string, string[]],
  args: string[],
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
  streams: StepStreams,
  stdout: Sink,
  stderr: Sink,
): Promise<Ran> {
  return new Promise((done) => {
    const files: number[] = [];
    const target = (sink: Sink): 'inherit' | 'pipe' | number => {
      if (sink === 'log') return 'inherit';
      if (typeof sink === 'object') {
        const fd = openSync(sink.file, 'w');
        files.push(fd);
        return fd;
      }
      return 'pipe';
    };
    const ran: Ran = { code: 0, stdout: '', stderr: '', log: '' };
    // wafctl (or `npx wafctl@VERSION`, fetched at run time), and git, never need the GitHub token.
    const { [inputVariable('github-token')]: _token, ...childEnv } = env;
    const child = spawn(program, [...prefix, ...args], {
      cwd,
      env: childEnv as NodeJS.ProcessEnv,
      stdio: ['ignore', target(stdout), target(stderr)],
    });
    for (const fd of files) closeSync(fd);
    const collect = (stream: NodeJS.ReadableStream | null, sink: Sink, key: 'stdout' | 'stderr') => {
      if (stream === null) return;
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        if (sink === 'tee') (key === 'stdout' ? streams.stdout : streams.stderr).write(chunk);
        if (ran[key].length < KEEP) ran[key] += chunk;
        if (ran.log.length < KEEP) ran.log += chunk;
      });
    };
    collect(child.stdout, stdout, 'stdout');
    collect(child.stderr, stderr, 'stderr');
    // A child that could not start emits 'error' and may emit no 'close': settle once, on either.
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      done(ran);
    };
    child.on('error', (error) => {
      streams.stdout.write(`${errorAnnotation(`could not run ${program}: ${error.message}`)}\n`);
      ran.code = 1;
      settle();
    });
    child.on('close', (code, signal) => {
      if (settled) return;
      if (code !== null) ran.code = code;
      else if (signal !== null) ran.code = 128 + (constants.signals[signal] ?? 0);
      settle();
    });
  });
}
