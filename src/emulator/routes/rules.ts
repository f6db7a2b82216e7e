/** /api/v1/rules: read-only rules from the seed (or the demo directory), with every documented filter. */
import { RULES } from '../collections.js';
import { ListFilter } from '../filters.js';
import { listPage } from '../listing.js';
import { parsePageRequest } from '../pagination.js';
import type { Rule } from '../records.js';
import { fail, ok, type Route, type RouteContext, type RouteResult } from '../router.js';

const MESSAGES = {
  list: 'List of rules',
  paginationError: 'Error with pagination fields',
  retrieved: 'Rule retrieved.',
  retrieveError: 'Error retrieving rule',
} as const;

function list({ query, store }: RouteContext): RouteResult {
  const page = parsePageRequest(query);
  if ('errors' in page) return fail(MESSAGES.paginationError, page.errors);
  const filter = new ListFilter<Rule>(query)
    .text('id', (r) => r.id, ['exact', 'list'])
    .exact('kind', (r) => r.kind)
    .exact('pattern', (r) => r.pattern)
    .text('rq_host', (r) => r.rq_host, ['exact', 'list', 'search'])
    .text('target', (r) => r.target, ['exact', 'list', 'search'])
    .text('action', (r) => r.action, ['exact', 'list'])
    .noneOf('not_action_list', (r) => r.action)
    .onlyWhenTrue('network_only', (r) => r.network_only)
    .text('alert_id', (r) => r.alert_id, ['exact', 'list'])
    .text('attack_code', (r) => r.attack_code, ['exact', 'list'])
    .integer('timestamp', (r) => r.timestamp)
    .text('username', (r) => r.username, ['exact', 'list', 'search']);
  if (filter.errors.length > 0) return fail(MESSAGES.paginationError, filter.errors);
  const { rows, pagination } = listPage(store.collection(RULES), filter, page);
  return ok(MESSAGES.list, { rules: rows }, { pagination });
}

export const ruleRoutes: Route[] = [
  {
    method: 'GET',
    template: '/api/v1/rules',
    privilege: 'rules:read',
    body: 'none',
    errorMessage: MESSAGES.paginationError,
    handle: list,
  },
  {
    method: 'GET',
    template: '/api/v1/rules/{rule_id}',
    privilege: 'rules:read',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store, params }) => {
      const rule = store.collection(RULES).get(params.rule_id ?? '');
      if (rule === undefined)
        return fail(MESSAGES.retrieveError, [`rule_id: no rule with id '${params.rule_id}'`]);
      return ok(MESSAGES.retrieved, { rule });
    },
  },
];
