#!/usr/bin/env node
import { buildProgram } from './program.js';
import { reportError } from './report-error.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = reportError(error);
}
