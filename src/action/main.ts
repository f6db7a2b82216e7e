/**
 * The GitHub Action's entry point (action.yml `runs.main`, bundled to dist/action.mjs): the only
 * module of src/action/ that touches `process`. The bundled CLI is dist/wafctl.mjs beside it.
 */
import { dirname, resolve } from 'node:path';
import { runAction } from './run.js';

process.exitCode = await runAction({
  env: process.env,
  actionDir: dirname(resolve(process.argv[1] ?? '.')),
  cwd: process.cwd(),
  execPath: process.execPath,
  stdout: process.stdout,
  stderr: process.stderr,
});
