/**
 * Renames that keep identity (`renamed_from:`), through the real CLI against the emulator: each
 * family's rename is one PUT that keeps the id (a notification's, whose name is its path key, a
 * replacement that says why), a delete and a create that look like a rename suggest the line,
 * a renamed_from that matches nothing is a note, validate refuses two objects renamed from one key,
 * and a saved plan applies the same rename or is refused as stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { ruleYaml } from '../helpers/fixtures.js';

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(async () => {
  await firewall.close();
});

const cli = (args: string[]) => runCli(args, { env: firewall.env });

/** Write calls the emulator served since the last reset, by route (GETs and its own routes left out). */
async function writes(): Promise<Record<string, number>> {
  const { by_route } = await firewall.stats();
  return Object.fromEntries(
    Object.entries(by_route).filter(
      ([route]) => !route.startsWith('GET ') && !route.includes('__emulator') && !route.includes('signin'),
    ),
  );
}
const count = (routes: Record<string, number>, method: string) =>
  Object.entries(routes)
    .filter(([route]) => route.startsWith(`${method} `))
    .reduce((sum, [, n]) => sum + n, 0);

const group = (name: string, extra = '') => `groups:\n  - name: ${name}\n${extra}    description: the team\n`;
const schedule = (name: string, extra = '') =>
  `schedules:\n  - name: ${name}\n${extra}    hosts: [shop.example.com]\n    type: summary\n    schedule: weekly\n    send_to: [a@example.com]\n    send_via: email\n    timezone: UTC\n`;
const notification = (name: string, extra = '') =>
  `notifications:\n  - name: ${name}\n${extra}    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef, protocol: udp}\n`;
const rule = (description: string, extra = '') =>
  `application_rules:\n${ruleYaml({ description }).replace(/( {4}description: [^\n]*\n)/, `$1${extra}`)}`;

interface Family {
  name: string;
  kind: string;
  yaml: (key: string, extra?: string) => string;
  oldKey: string;
  newKey: string;
  /** renamed_from's value: the old key as plans print it. */
  from: string;
  /** The live objects' ids by key. */
  ids: () => Promise<Map<string, string>>;
}

const FAMILIES: Family[] = [
  {
    name: 'groups',
    kind: 'group',
    yaml: group,
    oldKey: 'analysts',
    newKey: 'soc',
    from: 'analysts',
    ids: async () => new Map((await firewall.api.groups.list()).map((g) => [g.name, g.id])),
  },
  {
    name: 'application rules',
    kind: 'application_rule',
    yaml: rule,
    oldKey: 'Block admin',
    newKey: 'Block the admin panel',
    from: 'shop.example.com/Block admin',
    ids: async () =>
      new Map((await firewall.api.applicationRules.list()).map((r) => [r.description ?? '', r.id])),
  },
  {
    name: 'schedules',
    kind: 'schedule',
    yaml: schedule,
    oldKey: 'weekly',
    newKey: 'weekly-summary',
    from: 'weekly',
    ids: async () => new Map((await firewall.api.schedules.list()).map((s) => [s.name, s.id])),
  },
];

describe('renamed_from keeps the id', () => {
  for (const family of FAMILIES) {
    it(`${family.name}: one update, the same id, then no changes`, async () => {
      const dir = await writeConfig({ 'objects.yaml': family.yaml(family.oldKey) });
      expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
      const id = (await family.ids()).get(family.oldKey);
      expect(id).toBeDefined();

      await writeFile(
        join(dir, 'objects.yaml'),
        family.yaml(family.newKey, `    renamed_from: ${JSON.stringify(family.from)}\n`),
      );
      const plan = await cli(['plan', dir, '--no-color']);
      expect(plan.code).toBe(0);
      expect(plan.stdout).toContain(
        `will be updated in-place\n  # renamed from ${JSON.stringify(family.from)}\n`,
      );
      expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');

      await firewall.resetStats();
      const applied = await cli(['apply', dir, '--auto-approve']);
      expect(applied.code).toBe(0);
      const sent = await writes();
      expect([count(sent, 'PUT'), count(sent, 'POST'), count(sent, 'DELETE')]).toEqual([1, 0, 0]);
      const ids = await family.ids();
      expect(ids.get(family.newKey)).toBe(id);
      expect(ids.has(family.oldKey)).toBe(false);

      // Done: renamed_from now matches nothing, which is a note (the line may stay), not a change.
      const again = await cli(['plan', dir, '--no-color']);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('No changes.');
      expect(again.stdout).toContain(`Note: ${family.kind}.`);
      expect(again.stdout).toContain('so the rename is done; the line can be removed');
    });
  }

  it('notifications: the name is the path key the API does not update, so the rename is a replacement that says so', async () => {
    const dir = await writeConfig({ 'objects.yaml': notification('siem') });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'objects.yaml'), notification('siem-eu', '    renamed_from: siem\n'));
    const plan = await cli(['plan', dir, '--no-color']);
    expect(plan.stdout).toContain(
      '  # renamed from "siem": cannot be renamed in place: the API does not update name\n',
    );
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
    await firewall.resetStats();
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    const sent = await writes();
    expect([count(sent, 'PUT'), count(sent, 'POST'), count(sent, 'DELETE')]).toEqual([0, 1, 1]);
    expect((await firewall.api.notifications.list()).map((n) => n.name)).toEqual(['siem-eu']);
    expect((await cli(['plan', dir])).stdout).toContain('No changes.');
  });
});

describe('around renames', () => {
  it('suggests renamed_from on a delete and a create that differ only in the key', async () => {
    const prune = 'manage:\n  application_rules: {prune: true}\n';
    const dir = await writeConfig({ 'rules.yaml': rule('Block admin'), 'wafctl.yaml': prune });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'rules.yaml'), rule('Block the admin panel'));
    const plan = await cli(['plan', dir, '--no-color']);
    expect(plan.stdout).toContain(
      'Hint: application_rule.shop.example.com/Block admin looks renamed to application_rule.shop.example.com/Block the admin panel: add renamed_from: "shop.example.com/Block admin" to keep its id',
    );
    expect(plan.stdout).toContain('Plan: 1 to add, 0 to change, 1 to destroy.');
    const json = JSON.parse((await cli(['plan', dir, '--format', 'json'])).stdout) as Record<string, unknown>;
    expect(json.rename_suggestions).toEqual([
      {
        kind: 'application_rule',
        from: 'shop.example.com/Block admin',
        to: 'shop.example.com/Block the admin panel',
      },
    ]);
  });

  it('a renamed_from that matches nothing is a note, exit 0 and no changes', async () => {
    const dir = await writeConfig({ 'groups.yaml': group('soc') });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'groups.yaml'), group('soc', '    renamed_from: never-existed\n'));
    const plan = await cli(['plan', dir, '--no-color']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.stdout).toMatch(
      /Note: group\.soc: renamed_from "never-existed" \(declared at [^)]*groups\.yaml:2:5\) matches nothing: no live group has that key and "soc" exists/,
    );
    // Neither key live: the object is created, and the note says so.
    await writeFile(join(dir, 'groups.yaml'), `${group('soc')}  - name: fresh\n    renamed_from: gone\n`);
    const created = await cli(['plan', dir, '--no-color']);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(
      /Note: group\.fresh: renamed_from "gone" \(declared at [^)]*groups\.yaml:4:5\) matches nothing: no live group has that key; "fresh" is created/,
    );
  });

  it('a note when both the old and the new key exist: the new one is the match', async () => {
    const dir = await writeConfig({
      'groups.yaml': `${group('analysts')}  - name: soc\n    description: the team\n`,
    });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'groups.yaml'), group('soc', '    renamed_from: analysts\n'));
    const plan = await cli(['plan', dir, '--no-color']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(
      /Note: group\.soc: renamed_from "analysts" \(declared at [^)]*\): both "analysts" \(id \S+\) and "soc" \(id \S+\) exist/,
    );
    expect(plan.stdout).toContain('No changes.');
    expect(plan.stdout).toContain('group.analysts (in scope but in no file, and prune is off)');
  });

  it('validate refuses two objects renamed from one key, at both', async () => {
    const dir = await writeConfig({
      'groups.yaml':
        'groups:\n  - name: a\n    renamed_from: old\n  - name: b\n    renamed_from: old\n  - name: c\n    renamed_from: c\n  - name: d\n    renamed_from: a\n',
    });
    const result = await runCli(['validate', dir], { env: {} });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /groups\.yaml:3:19 groups\[0\]\.renamed_from: renamed_from "old": another object is renamed from the same key, at \S*groups\.yaml:5:19/,
    );
    expect(result.stderr).toMatch(
      /groups\.yaml:5:19 groups\[1\]\.renamed_from: renamed_from "old": another object/,
    );
    expect(result.stderr).toContain(
      `groups[2].renamed_from: renamed_from "c" is the group's own key: remove the line`,
    );
    expect(result.stderr).toMatch(
      /groups\[3\]\.renamed_from: renamed_from "a": a group with that key is still declared at \S*groups\.yaml:2:5/,
    );
  });

  /**
   * `analysts`, applied, then renamed to `soc` in the file (`renamed_from:`, with `comment`), the rename
   * applied or not, and the live group's description changed by hand: then pull.
   */
  async function pullAfterHandChange(applied: boolean, comment = '') {
    const dir = await writeConfig({ 'groups.yaml': group('analysts') });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    await writeFile(join(dir, 'groups.yaml'), group('soc', `    renamed_from: analysts${comment}\n`));
    if (applied) expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    const name = applied ? 'soc' : 'analysts';
    const live = (await firewall.api.groups.list()).find((g) => g.name === name);
    await firewall.api.groups.update(live?.id ?? '', {
      name,
      description: 'the night team',
      is_admin: false,
      permissions: [],
      user_ids: [],
    });
    expect((await cli(['pull', dir])).code).toBe(0);
    return {
      file: await readFile(join(dir, 'groups.yaml'), 'utf8'),
      plan: await cli(['plan', dir, '--no-color']),
    };
  }

  it('pull keeps the renamed_from line of an object it writes a hand change into', async () => {
    const { file, plan } = await pullAfterHandChange(true, ' # was analysts');
    expect(file).toBe(
      'groups:\n  - name: soc\n    renamed_from: analysts # was analysts\n    description: the night team\n',
    );
    expect(plan.stdout).toContain('No changes.');
  });

  it('pull before the rename is applied keeps the new name and pulls the other fields', async () => {
    const { file, plan } = await pullAfterHandChange(false);
    expect(file).toBe(
      'groups:\n  - name: soc\n    renamed_from: analysts\n    description: the night team\n',
    );
    // The rename is still to apply, and nothing else.
    expect(plan.stdout).toContain('renamed from "analysts"');
    expect(plan.stdout).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
  });

  it('apply --plan applies the saved rename; an edited old key is refused, a second apply is stale', async () => {
    const dir = await writeConfig({ 'groups.yaml': group('analysts') });
    expect((await cli(['apply', dir, '--auto-approve'])).code).toBe(0);
    const id = (await firewall.api.groups.list()).find((g) => g.name === 'analysts')?.id;
    await writeFile(join(dir, 'groups.yaml'), group('soc', '    renamed_from: analysts\n'));
    const out = join(dir, 'plan.json');
    expect((await cli(['plan', dir, '--out', out])).code).toBe(0);
    const saved = JSON.parse(await readFile(out, 'utf8')) as { changes: Record<string, unknown>[] };
    expect(saved.changes[0]).toMatchObject({ action: 'update', key: 'soc', renamed_from: 'analysts', id });

    // Edited to claim another old key: refused, nothing sent.
    await writeFile(
      out.replace('plan.json', 'edited.json'),
      JSON.stringify({
        ...saved,
        changes: [{ ...saved.changes[0], renamed_from: 'someone-else' }],
      }),
    );
    await firewall.resetStats();
    const edited = await cli(['apply', '--plan', join(dir, 'edited.json'), dir]);
    expect(edited.code).not.toBe(0);
    expect(edited.stderr).toContain('is renamed from "someone-else", which is not its key');
    expect(await writes()).toEqual({});

    const applied = await cli(['apply', '--plan', out, dir]);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('# renamed from "analysts"');
    expect((await firewall.api.groups.list()).find((g) => g.name === 'soc')?.id).toBe(id);

    // The same plan again: the object no longer has the fingerprint it was planned from.
    const again = await cli(['apply', '--plan', out, dir]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('Saved plan is stale');
  });
});
