/**
 * The token in no form: one with characters JSON escapes (`"`, `\`, `/`), held by a live object, never
 * reaches the output, a debug log or a written file — raw or JSON-escaped.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { writeConfig } from '../helpers/firewall.js';

const TOKEN = 'e2e"tok\\en/with-escapes-7';
const FORMS = [TOKEN, JSON.stringify(TOKEN).slice(1, -1), encodeURIComponent(TOKEN)];

let emulator: RunningEmulator;
let env: Record<string, string>;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, adminToken: TOKEN });
  env = { WAF_URL: emulator.url, WAF_TOKEN: TOKEN, WAFCTL_DEBUG: '1' };
  // Seeded with a bare fetch: wafctl's client refuses to send a body that holds the token.
  const seeded = await fetch(`${emulator.url}/api/v1/application_rules`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'multipart/mixed' },
    body: JSON.stringify({
      rules: [
        {
          rq_host: 'shop.example.com',
          description: `pasted by mistake: ${TOKEN}`,
          priority: 'low',
          username: 'someone',
          conditions: [
            { operator: 'match', expressions: [{ expression: '^/x' }], targets: [{ target: 'path' }] },
          ],
          actions: [{ firewall_action: 'log', firewall_name: 'waf-eu-1' }],
        },
      ],
    }),
  });
  expect(seeded.status).toBe(200);
});
afterAll(() => emulator.close());

const leaks = (text: string) => FORMS.filter((form) => text.includes(form));

describe('a token that JSON escapes', () => {
  it('is redacted from JSON output and the debug log, raw and escaped', async () => {
    const dir = await writeConfig({ 'manage.yaml': 'manage:\n  application_rules: {prune: true}\n' });
    const plan = await runCli(['plan', dir, '--format', 'json'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).changes[0].before.description).toBe('pasted by mistake: [REDACTED]');
    const get = await runCli(['get', 'application-rules', '--output', 'json'], { env });
    expect(get.stdout).toContain('[REDACTED]');
    expect(get.stderr).toMatch(/^--> GET \/api\/v1\/application_rules/m);
    expect(leaks(plan.stdout + plan.stderr + get.stdout + get.stderr)).toEqual([]);
  });

  it('is never written to a saved plan, even escaped: the file is refused', async () => {
    const dir = await writeConfig({ 'manage.yaml': 'manage:\n  application_rules: {prune: true}\n' });
    const out = join(dir, 'plan.json');
    const plan = await runCli(['plan', dir, '--out', out], { env });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`refusing to write ${out}: it would contain the API token`);
    expect(leaks(plan.stdout + plan.stderr)).toEqual([]);
  });

  it('is never exported: printing and writing are refused, --redact-secrets redacts on purpose', async () => {
    const printed = await runCli(['export', '--kind', 'application-rules'], { env });
    expect(printed.code).toBe(1);
    expect(printed.stdout).toBe('');
    expect(printed.stderr).toMatch(
      /^Error: refusing to print the export: the live state holds the API token \(line \d+\), .* Pass --redact-secrets /m,
    );

    const dir = await writeConfig({});
    const written = await runCli(['export', '--dir', dir], { env });
    expect(written.code).toBe(1);
    expect(written.stderr).toContain(
      `refusing to write ${join(dir, 'application-rules.yaml')}: the live state holds`,
    );
    expect(await readdir(dir)).toEqual([]);

    const redacted = await runCli(['export', '--kind', 'application-rules', '--redact-secrets'], { env });
    expect(redacted.code, redacted.stderr).toBe(0);
    expect(redacted.stdout).toContain('pasted by mistake: [REDACTED]');
    expect(
      leaks(printed.stdout + printed.stderr + written.stderr + redacted.stdout + redacted.stderr),
    ).toEqual([]);
  });
});
