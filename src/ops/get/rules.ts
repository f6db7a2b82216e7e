/**
 * The read-only rules: `wafctl get` reads them, but wafctl manages no such family, so they have no
 * descriptor in the registry (src/kinds/). This is their one entry, of the shape a family's is.
 */
import type { Rule } from '../../api/index.js';
import { flag, fromMicros, text } from '../../kinds/cells.js';
import { defineGet } from '../../kinds/kind.js';

export const rules = {
  name: 'rule',
  section: 'rules',
  noun: 'rule',
  get: defineGet<Rule>({
    columns: [
      { header: 'ID', cell: (r) => r.id },
      { header: 'KIND', cell: (r) => text(r.kind) },
      { header: 'RQ_HOST', cell: (r) => text(r.rq_host) },
      { header: 'TARGET', cell: (r) => text(r.target) },
      { header: 'ACTION', cell: (r) => text(r.action) },
      { header: 'PRIORITY', cell: (r) => text(r.priority) },
      { header: 'ENABLED', cell: (r) => flag(r.enabled) },
      { header: 'DESCRIPTION', cell: (r) => text(r.description) },
      { header: 'CREATED', cell: (r) => fromMicros(r.timestamp) },
    ],
    list: (api, filters) => api.iterateWithFilters('rules', filters),
    find: { by: 'id', one: (api, id) => api.rules.get(id) },
  }),
};
