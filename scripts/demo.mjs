// Placeholder demo until the emulator and planner land: show the version and the commands.
import { spawnSync } from 'node:child_process';

const cli = new URL('../dist/cli/main.js', import.meta.url).pathname;
for (const args of [['--version'], ['--help']]) {
  const result = spawnSync(process.execPath, [cli, ...args], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
