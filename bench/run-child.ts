/** Runs one job in a fresh child process and collects what it reports. */
import { fork } from 'node:child_process';
import type { ChildMessage, Job, JobResult } from './jobs.js';

const CHILD = new URL('./child.js', import.meta.url);

export function runInChild(job: Job, token: string | undefined): Promise<JobResult> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, WAF_TOKEN: token ?? '' };
    const child = fork(CHILD, [], { env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [] });
    let answer: ChildMessage | undefined;
    child.once('message', (message: ChildMessage) => {
      answer = message;
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (answer?.ok) resolve(answer.result);
      else if (answer) reject(new Error(`${job.type}: ${answer.message}`));
      else
        reject(
          new Error(`${job.type}: the child process ended (${signal ?? `exit ${code}`}) without a result`),
        );
    });
    child.send(job);
  });
}
