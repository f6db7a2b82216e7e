/**
 * Git repositories for tests of `--trusted-ref`: a base branch committed, then a work tree changed
 * on top of it, as a pull request's checkout is.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeConfig, writeFiles } from './firewall.js';

const run = promisify(execFile);

/** Runs git in `dir` with a fixed identity and no user or system configuration. */
export async function git(dir: string, ...args: string[]): Promise<string> {
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  return (await run('git', args, { cwd: dir, env })).stdout;
}

/**
 * A repository whose `main` holds `base` (committed), checked out on a branch `pr` whose work tree
 * then holds `change` written over it (not committed: wafctl reads the work tree).
 */
export async function pullRequestRepo(
  base: Record<string, string>,
  change: Record<string, string>,
): Promise<string> {
  const dir = await writeConfig(base);
  await git(dir, 'init', '--quiet', '--initial-branch=main');
  await git(dir, 'add', '--all');
  await git(dir, 'commit', '--quiet', '--message', 'base');
  await git(dir, 'checkout', '--quiet', '-b', 'pr');
  await writeFiles(dir, change);
  return dir;
}

/** The variables a CLI run needs to run git (the trusted ref is read with it). */
export const GIT_ENV = { PATH: process.env.PATH ?? '' };
