/**
 * The fewest requests the API allows for what each scenario asks of wafctl: list pages of
 * MAX_PAGE_SIZE rows, the GET-one calls the list shapes force (groups are listed without members;
 * 'single-action' rule rows lack conditions and the actions array), and writes of DEFAULT_BATCH_SIZE
 * objects (wafctl's default --batch-size; the API documents no limit, so --batch-size 1000 would
 * need ⌈N/1000⌉). A kind the configuration does not use is not read at all.
 */

import type { ApplicationRuleListShape } from '../src/emulator/index.js';
import { MAX_PAGE_SIZE } from '../src/emulator/pagination.js';
import { DEFAULT_BATCH_SIZE } from '../src/ops/defaults.js';

export interface Minimal {
  count: number;
  /** How the count is made up, e.g. `10 rule pages + 1 group list + ...`. */
  formula: string;
}

type Term = [count: number, label: string];

const fmt = (n: number) => n.toLocaleString('en-US');
/** A used kind costs one page even when it is empty. */
const pages = (n: number) => Math.max(1, Math.ceil(n / MAX_PAGE_SIZE));
const batches = (n: number) => Math.ceil(n / DEFAULT_BATCH_SIZE);

function sum(terms: readonly Term[]): Minimal {
  const used = terms.filter(([count]) => count > 0);
  return {
    count: used.reduce((total, [count]) => total + count, 0),
    formula: used.map(([count, label]) => `${fmt(count)} ${label}`).join(' + '),
  };
}

/** Rule list pages, and the GET-ones that 'single-action' rows force. */
function ruleReads(listed: number, shape: ApplicationRuleListShape): Term[] {
  return [
    [pages(listed), `rule page(s) of ${MAX_PAGE_SIZE}`],
    [shape === 'single-action' ? listed : 0, 'rule GET-ones (single-action rows)'],
  ];
}

export function planMinimal(
  content: { rules: number; groups: number; notifications: number; schedules: number },
  shape: ApplicationRuleListShape,
): Minimal {
  const used = (n: number, terms: Term[]): Term[] => (n > 0 ? terms : []);
  return sum([
    ...used(content.rules, ruleReads(content.rules, shape)),
    ...used(content.groups, [
      [1, 'group list'],
      // Every Seer Box has the built-in admins group too, listed (and so read) like the others.
      [content.groups + 1, 'group GET-ones (listed without members; the built-in admins included)'],
      // Members may be usernames: resolving them needs the user listing, once (issue 30).
      [1, 'user list'],
    ]),
    ...used(content.notifications, [[1, 'notification list (not paginated)']]),
    ...used(content.schedules, [[pages(content.schedules), `schedule page(s) of ${MAX_PAGE_SIZE}`]]),
  ]);
}

export function applyMinimal(
  scenario: 'apply-create' | 'apply-update' | 'apply-delete',
  n: number,
  shape: ApplicationRuleListShape,
): Minimal {
  switch (scenario) {
    case 'apply-create':
      return sum([
        [1, 'rule page (empty)'],
        [batches(n), `bulk POST(s) of ${DEFAULT_BATCH_SIZE}`],
        // A create's answer is a claim: one re-read by the ids it gave proves each POST (issue 41).
        [batches(n), 're-read(s) by id, proving each POST'],
      ]);
    case 'apply-update':
      return sum([...ruleReads(n, shape), [1, 'bulk PUT (identical attrs, all ids)']]);
    case 'apply-delete':
      return sum([...ruleReads(n, shape), [batches(n), `bulk DELETE(s) of ${DEFAULT_BATCH_SIZE}`]]);
  }
}
