/**
 * Configuration is read only inside its boundary, after resolving links: a pull request controls
 * the files of the checkout (not the command line), so a symbolic link in it must not make wafctl
 * read, and quote, `.git/config` or `/etc/passwd` (src/config/load.ts, containment.ts).
 */
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadDesiredState, loadEnvironment } from '../../src/config/load.js';
import { ConfigError, formatProblem } from '../../src/config/problems.js';
import { readProject } from '../../src/config/project.js';
import { runCli } from '../helpers/cli.js';
import { writeFiles } from '../helpers/firewall.js';

let dir = '';
/** A second directory, outside `dir`: what a link must not reach. */
let outside = '';

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-links-'));
  outside = await mkdtemp(join(tmpdir(), 'wafctl-links-outside-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const SECRET = 'c2VjcmV0LXRva2Vu';
const GIT_CONFIG = `[http]\n\textraheader = basic ${SECRET}\n`;
const GROUPS = 'groups:\n  - name: soc\n';
const OUTSIDE_ROOT = 'outside the configuration root';
const ONLY_INSIDE = 'wafctl reads configuration only inside it';
const NOT_HIDDEN = 'wafctl reads no configuration from hidden directories or node_modules';

async function problemsOf(load: () => Promise<unknown>): Promise<string[]> {
  try {
    await load();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map(formatProblem);
    throw error;
  }
  throw new Error('loaded without problems');
}

const desired = (paths: string[], cwd = dir) => problemsOf(() => loadDesiredState(paths, { cwd, env: {} }));

async function loadStaging() {
  const project = await readProject('.', dir);
  const staging = project?.environments[0];
  if (project === undefined || staging === undefined) throw new Error('no environment');
  return loadEnvironment(project, staging, { cwd: dir, env: {} });
}

const PROJECT = (paths: string) => `environments:
  staging:
    url: https://waf-staging.example.com
    token_env: WAF_TOKEN_STAGING
    paths: ${paths}
`;

describe('a link leaving the configuration root', () => {
  it('config/x.yaml -> ../.git/config: validate refuses it by name and quotes nothing of it', async () => {
    await writeFiles(dir, { '.git/config': GIT_CONFIG, 'config/groups.yaml': GROUPS });
    await symlink('../.git/config', join(dir, 'config/x.yaml'));
    const result = await runCli(['validate', 'config'], { cwd: dir });
    const output = result.stdout + result.stderr;
    expect(result.code).toBe(1);
    expect(output).toContain(
      `config/x.yaml: refused: it is a symbolic link to a file ${OUTSIDE_ROOT} (config); ${ONLY_INSIDE}`,
    );
    expect(output).not.toContain('extraheader');
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain('.git');
  });

  it('a link to a YAML-shaped file outside: none of its keys or values are quoted', async () => {
    // Read as YAML, this file would be quoted: `unknown field "extraheader"`.
    await writeFiles(outside, { 'credentials.yaml': `extraheader: basic ${SECRET}\n` });
    await writeFiles(dir, { 'config/groups.yaml': GROUPS });
    await symlink(join(outside, 'credentials.yaml'), join(dir, 'config/x.yaml'));
    const result = await runCli(['validate', 'config'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `config/x.yaml: refused: it is a symbolic link to a file ${OUTSIDE_ROOT} (config); ${ONLY_INSIDE}\n1 problem in 1 file.\n`,
    );
    const json = await runCli(['validate', 'config', '--format', 'json'], { cwd: dir });
    expect(json.stdout).not.toContain('extraheader');
    expect(json.stdout).not.toContain(SECRET);
    expect(json.stdout).not.toContain(outside);
  });

  it('a link to /etc/passwd is refused by name; nothing of the target is quoted', async () => {
    await writeFiles(dir, { 'config/groups.yaml': GROUPS });
    await symlink('/etc/passwd', join(dir, 'config/users.yaml'));
    const problems = await desired(['config']);
    expect(problems).toEqual([
      `config/users.yaml: refused: it is a symbolic link to a file ${OUTSIDE_ROOT} (config); ${ONLY_INSIDE}`,
    ]);
    const result = await runCli(['validate', 'config'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('/etc');
    expect(result.stderr).not.toContain('passwd');
    expect(result.stderr).not.toContain('root:');
  });

  it('a link to a file in another directory is refused, and so is one given as a PATH', async () => {
    await writeFiles(outside, { 'groups.yaml': GROUPS });
    await writeFiles(dir, { 'config/ops.yaml': 'groups:\n  - name: ops\n' });
    await symlink(join(outside, 'groups.yaml'), join(dir, 'config/groups.yaml'));
    expect(await desired(['config'])).toEqual([
      `config/groups.yaml: refused: it is a symbolic link to a file ${OUTSIDE_ROOT} (config); ${ONLY_INSIDE}`,
    ]);
    // Given as a PATH inside the working directory: the root is the working directory.
    expect(await desired(['config/groups.yaml', 'config/ops.yaml'])).toEqual([
      `config/groups.yaml: refused: it is a symbolic link to a file ${OUTSIDE_ROOT} (.); ${ONLY_INSIDE}`,
    ]);
  });

  it('a directory reached through a link is checked too: a file in it leaving the root is refused', async () => {
    await writeFiles(outside, { 'groups.yaml': GROUPS });
    await writeFiles(dir, { 'config/ops.yaml': 'groups:\n  - name: ops\n' });
    await symlink(outside, join(dir, 'config/shared'));
    // The walk does not follow the directory link; a PATH through it is refused.
    expect((await loadDesiredState(['config'], { cwd: dir, env: {} })).files).toEqual(['config/ops.yaml']);
    expect(await desired(['config/shared/groups.yaml', 'config/ops.yaml'])).toEqual([
      `config/shared/groups.yaml: refused: its path goes through a symbolic link to a file ${OUTSIDE_ROOT} (.); ${ONLY_INSIDE}`,
    ]);
  });

  it('a link whose target does not exist is still "no such file or directory"', async () => {
    await writeFiles(dir, { 'config/groups.yaml': GROUPS });
    await symlink('../missing/config.yaml', join(dir, 'config/x.yaml'));
    expect(await desired(['config'])).toEqual(['config/x.yaml: no such file or directory']);
  });
});

describe('a link into a hidden directory or node_modules', () => {
  it('validate . with x.yaml -> .git/config: refused as a hidden directory', async () => {
    await writeFiles(dir, { '.git/config': GIT_CONFIG, 'groups.yaml': GROUPS });
    await symlink('.git/config', join(dir, 'x.yaml'));
    const result = await runCli(['validate', '.'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `x.yaml: refused: it is a symbolic link to a file in a hidden directory (.git); ${NOT_HIDDEN}`,
    );
    expect(result.stderr).not.toContain('extraheader');
    expect(result.stderr).not.toContain(SECRET);
    expect(await desired([])).toEqual([
      `x.yaml: refused: it is a symbolic link to a file in a hidden directory (.git); ${NOT_HIDDEN}`,
    ]);
  });

  it('a link into node_modules, or to a hidden file, is refused the same way', async () => {
    await writeFiles(dir, {
      'node_modules/pkg/groups.yaml': GROUPS,
      '.env.yaml': 'groups:\n  - name: ops\n',
      'ops.yaml': 'groups:\n  - name: ops2\n',
    });
    await symlink('node_modules/pkg/groups.yaml', join(dir, 'groups.yaml'));
    await symlink('.env.yaml', join(dir, 'env.yaml'));
    expect(await desired(['.'])).toEqual([
      `env.yaml: refused: it is a symbolic link to a hidden file (.env.yaml); ${NOT_HIDDEN}`,
      `groups.yaml: refused: it is a symbolic link to a file in node_modules; ${NOT_HIDDEN}`,
    ]);
  });

  it('a hidden directory typed as a PATH is read as typed (no link was followed)', async () => {
    await writeFiles(dir, { '.waf/groups.yaml': GROUPS });
    const config = await loadDesiredState(['.waf'], { cwd: dir, env: {} });
    expect(config.state.groups.map((group) => group.name)).toEqual(['soc']);
  });
});

describe('links inside the root keep working', () => {
  it('a link to another file inside the root is loaded, relative or absolute', async () => {
    await writeFiles(dir, {
      'config/groups.yaml': GROUPS,
      'config/shared/ops.txt': 'groups:\n  - name: ops\n',
      'config/shared/audit.txt': 'groups:\n  - name: audit\n',
    });
    await symlink('shared/ops.txt', join(dir, 'config/ops.yaml'));
    await symlink(join(dir, 'config/shared/audit.txt'), join(dir, 'config/audit.yaml'));
    const config = await loadDesiredState(['config'], { cwd: dir, env: {} });
    expect(config.state.groups.map((group) => group.name).sort()).toEqual(['audit', 'ops', 'soc']);
    expect(config.files).toEqual(['config/audit.yaml', 'config/groups.yaml', 'config/ops.yaml']);
  });

  it('a link to a yaml file elsewhere in the root, given as a PATH, is loaded', async () => {
    await writeFiles(dir, { 'base/groups.yaml': GROUPS, 'ops.yaml': 'groups:\n  - name: ops\n' });
    await symlink('base/groups.yaml', join(dir, 'groups.yaml'));
    const config = await loadDesiredState(['groups.yaml', 'ops.yaml'], { cwd: dir, env: {} });
    expect(config.state.groups.map((group) => group.name)).toEqual(['soc', 'ops']);
    const result = await runCli(['validate', 'groups.yaml', 'ops.yaml'], { cwd: dir });
    expect(result.code).toBe(0);
  });

  it("an environment's file and path linking elsewhere in the root are loaded", async () => {
    await writeFiles(dir, {
      'wafctl.yaml': PROJECT('[envs/staging, shared]'),
      'base/groups.yaml': GROUPS,
      'common/ops.yaml': 'groups:\n  - name: ops\n',
    });
    await mkdir(join(dir, 'envs/staging'), { recursive: true });
    await symlink('../../base/groups.yaml', join(dir, 'envs/staging/groups.yaml'));
    await symlink('common', join(dir, 'shared'));
    const config = await loadStaging();
    expect(config.state.groups.map((group) => group.name)).toEqual(['soc', 'ops']);
    expect(config.files).toEqual(['envs/staging/groups.yaml', 'shared/ops.yaml']);
  });
});

describe('environments and the project file', () => {
  it("an environment's path that is a directory link leaving the root is refused", async () => {
    await writeFiles(outside, { 'groups.yaml': GROUPS });
    await writeFiles(dir, {
      'wafctl.yaml': PROJECT('[base, shared]'),
      'base/ops.yaml': 'groups:\n  - name: ops\n',
    });
    await symlink(outside, join(dir, 'shared'));
    expect(await problemsOf(loadStaging)).toEqual([
      `shared: refused: it is a symbolic link to a directory ${OUTSIDE_ROOT} (.); ${ONLY_INSIDE}`,
    ]);
  });

  it("an environment's path that is a directory link into .git is refused", async () => {
    await writeFiles(dir, {
      'wafctl.yaml': PROJECT('[base, hooks]'),
      'base/ops.yaml': 'groups:\n  - name: ops\n',
      '.git/hooks/x.yaml': GROUPS,
    });
    await symlink('.git/hooks', join(dir, 'hooks'));
    expect(await problemsOf(loadStaging)).toEqual([
      `hooks: refused: it is a symbolic link to a directory in a hidden directory (.git); ${NOT_HIDDEN}`,
    ]);
  });

  it('wafctl.yaml that is a link leaving the root is refused, by readProject and by validate', async () => {
    await writeFiles(outside, { 'wafctl.yaml': PROJECT('[base]') });
    await writeFiles(dir, { 'base/groups.yaml': GROUPS });
    await symlink(join(outside, 'wafctl.yaml'), join(dir, 'wafctl.yaml'));
    const refusal = `wafctl.yaml: refused: it is a symbolic link to a file ${OUTSIDE_ROOT} (.); ${ONLY_INSIDE}`;
    expect(await problemsOf(() => readProject('.', dir))).toEqual([refusal]);
    const result = await runCli(['validate'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(refusal);
    expect(result.stderr).not.toContain('waf-staging');
  });

  it('wafctl.yaml that is a link to .git/config is refused without quoting it', async () => {
    await writeFiles(dir, { '.git/config': `environments:\n${GIT_CONFIG}`, 'base/groups.yaml': GROUPS });
    await symlink('.git/config', join(dir, 'wafctl.yaml'));
    const refusal = `wafctl.yaml: refused: it is a symbolic link to a file in a hidden directory (.git); ${NOT_HIDDEN}`;
    expect(await problemsOf(() => readProject('.', dir))).toEqual([refusal]);
    const result = await runCli(['validate', '.'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(refusal);
    expect(result.stderr).not.toContain('extraheader');
    expect(result.stderr).not.toContain(SECRET);
  });
});

describe('the configuration root', () => {
  it('a root that is a link leaving the working directory is refused, once, and nothing is read', async () => {
    await writeFiles(outside, { 'groups.yaml': GROUPS, 'wafctl.yaml': PROJECT('[.]') });
    await symlink(outside, join(dir, 'config'));
    const refusal =
      'config: refused: the configuration root leaves the working directory: it is a symbolic link to a directory outside it; wafctl reads configuration only inside the working directory';
    expect(await desired(['config'])).toEqual([refusal]);
    expect(await problemsOf(() => readProject('config', dir))).toEqual([refusal]);
    const result = await runCli(['validate', 'config'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`${refusal}\n1 problem in 1 file.\n`);
  });

  it('a root linking elsewhere inside the working directory is loaded', async () => {
    await writeFiles(dir, { 'waf/groups.yaml': GROUPS });
    await symlink('waf', join(dir, 'config'));
    const config = await loadDesiredState(['config'], { cwd: dir, env: {} });
    expect(config.files).toEqual(['config/groups.yaml']);
  });

  it('absolute PATH arguments outside the working directory still load', async () => {
    await writeFiles(outside, {
      'a.yaml': GROUPS,
      'b.txt': 'groups:\n  - name: ops\n',
      'sub/c.yaml': 'groups:\n  - name: audit\n',
    });
    await symlink('b.txt', join(outside, 'link.yaml'));
    const files = [join(outside, 'a.yaml'), join(outside, 'link.yaml')];
    const config = await loadDesiredState(files, { cwd: dir, env: {} });
    expect(config.state.groups.map((group) => group.name)).toEqual(['soc', 'ops']);
    const result = await runCli(['validate', ...files], { cwd: dir });
    expect(result.code).toBe(0);
    const whole = await loadDesiredState([outside], { cwd: dir, env: {} });
    expect(whole.state.groups.map((group) => group.name).sort()).toEqual(['audit', 'ops', 'soc']);
    expect(
      (await runCli(['validate', join(outside, 'sub'), join(outside, 'a.yaml')], { cwd: dir })).code,
    ).toBe(0);
  });

  it('a file given outside the working directory must stay in its own directory', async () => {
    await writeFiles(outside, { 'sub/a.yaml': GROUPS, 'b.yaml': 'groups:\n  - name: ops\n' });
    await symlink('../b.yaml', join(outside, 'sub/link.yaml'));
    const link = join(outside, 'sub/link.yaml');
    expect(await desired([join(outside, 'sub/a.yaml'), link])).toEqual([
      `${link}: refused: it is a symbolic link to a file outside the directory of the file given (${join(outside, 'sub')}); ${ONLY_INSIDE}`,
    ]);
  });
});
