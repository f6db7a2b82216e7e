/**
 * `apply --plan` trusts nothing a saved plan says about itself: what is shown, sent and judged is
 * rebuilt from the live objects and the plan's intent; the plan is refused on another server; and no
 * apply sends the API token. The real CLI against real emulators on free ports.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { rulesYaml } from '../helpers/fixtures.js';

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

const cli = (args: string[], env: Record<string, string> = firewall.env) => runCli(args, { env });

interface SavedFile {
  changes: Record<string, unknown>[];
  warnings: unknown[];
}

async function editSaved(path: string, edit: (saved: SavedFile) => void): Promise<void> {
  const saved = JSON.parse(await readFile(path, 'utf8')) as SavedFile;
  edit(saved);
  await writeFile(path, JSON.stringify(saved));
}

/** Write calls the emulator served (every route but GET and its own). */
async function writes(target: TestFirewall = firewall): Promise<string[]> {
  const { by_route } = await target.stats();
  return Object.keys(by_route).filter((route) => !route.startsWith('GET ') && !route.includes('__emulator'));
}

const groups = (...names: string[]) =>
  `groups:\n${names.map((name) => `  - name: ${name}\n    description: team ${name}\n`).join('')}`;

describe('apply --plan rebuilds what it shows, sends and judges', () => {
  it('judges the target it sends: an update edited to make a group admin is refused by --fail-on', async () => {
    const dir = await writeConfig({ 'groups.yaml': groups('ops') });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'groups.yaml'), groups('ops').replace('team ops', 'the ops team'));
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
    // The reviewed plan changes a description; the file now also makes the group an administrator.
    await editSaved(out, (saved) => {
      (saved.changes[0]?.target as Record<string, unknown>).is_admin = true;
    });
    await firewall.resetStats();

    const gated = await cli(['apply', '--plan', out, dir, '--fail-on', 'broadens_access']);
    expect(gated.code).toBe(3);
    expect(gated.stdout).toMatch(/~ is_admin += false -> true/);
    expect(gated.stdout).toContain('broadens_access  group.ops: made administrator');
    expect(gated.stderr).toMatch(
      /^Error: --fail-on broadens_access: 1 change broadens access \(group\.ops\);/,
    );
    expect(await writes()).toEqual([]);
    const live = (await firewall.api.groups.list()).find((g) => g.name === 'ops');
    expect([live?.is_admin, live?.description]).toEqual([false, 'team ops']);
  });

  it('recomputes the safety threshold: a plan whose warnings were emptied still needs --force', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `team-${String(i).padStart(2, '0')}`);
    const prune = 'manage:\n  groups: {prune: true}\n';
    const dir = await writeConfig({ 'groups.yaml': groups(...names), 'wafctl.yaml': prune });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'groups.yaml'), groups(names[0] ?? ''));
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
    await editSaved(out, (saved) => {
      saved.warnings = [];
    });

    const refused = await cli(['apply', '--plan', out, dir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'refusing to delete 19 of 20 group objects (limit 30%): above the safety threshold (settings.safety). Pass --force to apply anyway.',
    );
    expect(await firewall.api.groups.list()).toHaveLength(21); // and the built-in admins group

    const forced = await cli(['apply', '--plan', out, dir, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await firewall.api.groups.list()).toHaveLength(2); // the kept group and admins
  });
});

describe('a saved plan is applied only where it was made', () => {
  it('refuses another server, naming both, before any request to it', async () => {
    const other = await startTestFirewall();
    try {
      const dir = await writeConfig({ 'groups.yaml': groups('ops') });
      const out = join(dir, 'plan.json');
      expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
      const refused = await cli(['apply', '--plan', out, dir], other.env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `Error: the saved plan ${out} was made against ${firewall.url}, not ${other.url}: nothing was applied. Apply it against ${firewall.url}, or run plan --out against ${other.url}.\n`,
      );
      expect((await other.stats()).total).toBe(0);
      expect(JSON.parse(await readFile(out, 'utf8')).base_url).toBe(firewall.url);

      // The same URL written differently is the same server.

      const here = await cli(['apply', '--plan', out, dir], { ...firewall.env, WAF_URL: `${firewall.url}/` });
      expect(here.code, here.stderr).toBe(0);
      expect((await firewall.api.groups.list()).map((g) => g.name)).toEqual(['admins', 'ops']);
    } finally {
      await other.close();
    }
  });
});

describe('the API token is never sent to the firewall', () => {
  const rule = (firewall: string) => rulesYaml([{ firewall }]);

  it('refuses a fresh plan whose value holds it, naming the change and field, sending nothing', async () => {
    const dir = await writeConfig({ 'rules.yaml': rule(`waf ${E2E_TOKEN}`) });
    const result = await cli(['apply', dir, '--auto-approve']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'Error: refusing to send the API token (or another secret wafctl holds) to the firewall: application_rule.shop.example.com/Block admin actions would carry it. Nothing was applied. Remove it from the configuration (or from the live object, when an update would send it back).\n',
    );
    expect(result.stdout).toContain('[REDACTED]');
    expect(result.stdout + result.stderr).not.toContain(E2E_TOKEN);
    expect(await writes()).toEqual([]);
    expect(await firewall.api.applicationRules.list()).toEqual([]);
  });

  it('refuses a saved plan edited to carry it, before any write', async () => {
    const dir = await writeConfig({ 'groups.yaml': groups('ops') });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'groups.yaml'), groups('ops').replace('team ops', 'the ops team'));
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
    await editSaved(out, (saved) => {
      (saved.changes[0]?.target as Record<string, unknown>).description = `token: ${E2E_TOKEN}`;
    });
    await firewall.resetStats();

    const result = await cli(['apply', '--plan', out, dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'refusing to send the API token (or another secret wafctl holds) to the firewall: group.ops description would carry it.',
    );
    expect(result.stdout + result.stderr).not.toContain(E2E_TOKEN);
    expect(await writes()).toEqual([]);
    expect((await firewall.api.groups.list()).map((g) => g.description)).toEqual([
      'Built-in administrators',
      'team ops',
    ]);
  });
});
