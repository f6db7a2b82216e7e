// The demo: validate examples/config/ and run its rule tests (both offline), then plan, apply, plan
// again and check drift against an emulator started in-process for each command (--url embedded),
// sharing one state file between commands.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/wafctl.mjs');
const stateDir = mkdtempSync(join(tmpdir(), 'wafctl-demo-'));
const connection = ['--url', 'embedded', '--emulator-state', join(stateDir, 'emulator-state.json')];

const bold = process.stdout.isTTY && !process.env.NO_COLOR ? (s) => `\u001b[1m${s}\u001b[0m` : (s) => s;

const steps = [
  ['Validate the configuration (offline)', ['validate', 'examples/config/'], [0]],
  ['Test the rules against sample requests (offline)', ['test', 'examples/config/'], [0]],
  ['Plan against an empty firewall', ['plan', 'examples/config/', ...connection], [0]],
  ['Apply it', ['apply', 'examples/config/', '--auto-approve', ...connection], [0]],
  ['Plan again: nothing left to do', ['plan', 'examples/config/', '--detailed-exitcode', ...connection], [0]],
  ['Nightly drift check', ['drift', 'examples/config/', ...connection], [0]],
];

try {
  for (const [title, args, expected] of steps) {
    process.stdout.write(`\n${bold(`=== ${title}: wafctl ${args.join(' ')}`)}\n\n`);
    const result = spawnSync(process.execPath, [cli, ...args], { cwd: root, stdio: 'inherit' });
    if (!expected.includes(result.status)) {
      process.stderr.write(`\ndemo: step "${title}" exited ${result.status}\n`);
      process.exitCode = 1;
      break;
    }
  }
} finally {
  rmSync(stateDir, { recursive: true, force: true });
}
