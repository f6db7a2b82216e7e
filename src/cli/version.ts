import { readFileSync } from 'node:fs';

/** Read from package.json next to dist/ (and src/), so the version has one source. */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
