import { describe, expect, it } from 'vitest';
import { MAX_FILE_BYTES } from '../../../src/config/parse-yaml.js';
import { countOf, renderExportFile } from '../../../src/ops/export/document.js';
import {
  assertLoadable,
  exportToDirectory,
  exportToStream,
  fileNameOf,
} from '../../../src/ops/export/export.js';

const live = {
  sections: [
    { section: 'groups' as const, objects: [{ name: 'ops' }], leftOut: 0 },
    { section: 'application_rules' as const, objects: [], leftOut: 1 },
  ],
  leftOut: [],
};

describe('export files', () => {
  it('names one file per kind in --dir mode, and one stream otherwise', () => {
    expect(fileNameOf('application_rules')).toBe('application-rules.yaml');
    expect(exportToDirectory(live, 's.json').map((f) => f.name)).toEqual([
      'groups.yaml',
      'application-rules.yaml',
    ]);
    expect(exportToStream(live, 's.json').text).toBe(renderExportFile(live.sections, 's.json'));
  });

  it('words counts in the singular and plural', () => {
    expect(countOf('application_rules', 1)).toBe('1 application rule');
    expect(countOf('groups', 0)).toBe('0 groups');
    expect(exportToDirectory(live, 's')[1]?.text).toContain(
      '# prune is off: 1 application rule could not be exported (see the warnings of `wafctl export`),\n    # and pruning would delete it.',
    );
  });
});

describe('assertLoadable', () => {
  it('accepts what export renders, across files', () => {
    expect(assertLoadable(exportToDirectory(live, 's.json'))).toEqual([]);
  });

  it('throws, naming the problem, when a text would not load (a bug in export)', () => {
    expect(() => assertLoadable([{ name: 'groups.yaml', text: 'groups:\n  - name: ""\n' }])).toThrow(
      'the exported configuration does not load:\ngroups.yaml:2:11 groups[0].name: must not be empty',
    );
  });

  it('returns files too large for the loader instead of checking them', () => {
    const big = { name: 'application-rules.yaml', text: `# ${'x'.repeat(MAX_FILE_BYTES)}\n` };
    expect(assertLoadable([big])).toEqual([big]);
  });
});
