/**
 * /api/v1/application_rules. The spec documents list rows with a single `action` object and single
 * retrieval with an `actions` array. The default list shape ('full') carries both plus `conditions`;
 * 'single-action' carries only `action`, so clients must hydrate each row with GET-one. Either way
 * an action's `sync_status` is read at the time of the request (sync.ts).
 */
import { APPLICATION_RULES } from '../collections.js';
import { ListFilter } from '../filters.js';
import { listPage } from '../listing.js';
import { parsePageRequest } from '../pagination.js';
import type { ApplicationRule } from '../records.js';
import {
  type ApplicationRuleListShape,
  fail,
  ok,
  type Route,
  type RouteContext,
  type RouteResult,
} from '../router.js';
import { shownRule } from '../sync.js';
import {
  createRules,
  deleteRules,
  updateManyRules,
  updateOneRule,
  WRITE_MESSAGES,
} from './application-rule-writes.js';

const MESSAGES = {
  list: 'List of rules',
  paginationError: 'Error with pagination fields',
  retrieved: 'Rule retrieved.',
  retrieveError: 'Error retrieving rule',
} as const;

function listRow(
  stored: ApplicationRule,
  shape: ApplicationRuleListShape,
  nowMicros: number,
): Record<string, unknown> {
  const rule = shownRule(stored, nowMicros);
  const action = rule.actions[0] ?? null;
  if (shape === 'full') return { ...rule, action };
  const { actions: _actions, conditions: _conditions, ...rest } = rule;
  return { ...rest, action };
}

function list({ query, store, listShape }: RouteContext): RouteResult {
  const page = parsePageRequest(query);
  if ('errors' in page) return fail(MESSAGES.paginationError, page.errors);
  const filter = new ListFilter<ApplicationRule>(query)
    .text('id', (r) => r.id, ['exact', 'list'])
    .text('rq_host', (r) => r.rq_host, ['exact', 'list', 'search'])
    .integer('timestamp_create', (r) => r.timestamp_create)
    .integer('timestamp_update', (r) => r.timestamp_update)
    .text('username', (r) => r.username, ['exact', 'list', 'search'])
    .text('service', (r) => r.service, ['exact', 'list', 'search'])
    .exact('rule_set', (r) => r.rule_set)
    .exact('rule_set_id', (r) => r.rule_set_id)
    .flag('enabled', (r) => r.enabled);
  if (filter.errors.length > 0) return fail(MESSAGES.paginationError, filter.errors);
  const { rows, pagination } = listPage(store.collection(APPLICATION_RULES), filter, page);
  // Only the page is shaped and serialised, so a 1000-row page of a 10,000-rule store stays cheap.
  const now = store.clockMicros();
  const shaped = rows.map((r) => listRow(r, listShape, now));
  return ok(MESSAGES.list, { application_rules: shaped }, { pagination });
}

const COLLECTION = '/api/v1/application_rules';

export const applicationRuleRoutes: Route[] = [
  {
    method: 'GET',
    template: COLLECTION,
    privilege: 'application_rules:read',
    body: 'none',
    errorMessage: MESSAGES.paginationError,
    handle: list,
  },
  {
    method: 'GET',
    template: `${COLLECTION}/{application_rule_id}`,
    privilege: 'application_rules:read',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store, params }) => {
      const id = params.application_rule_id ?? '';
      const rule = store.collection(APPLICATION_RULES).get(id);
      if (rule === undefined)
        return fail(MESSAGES.retrieveError, [`application_rule_id: no rule with id '${id}'`]);
      return ok(MESSAGES.retrieved, { rule: shownRule(rule, store.clockMicros()) });
    },
  },
  {
    method: 'POST',
    template: COLLECTION,
    privilege: 'application_rules:write',
    body: 'multipart-json',
    errorMessage: WRITE_MESSAGES.createError,
    handle: createRules,
  },
  {
    method: 'PUT',
    template: `${COLLECTION}/{application_rule_id}`,
    privilege: 'application_rules:write',
    body: 'multipart-json',
    errorMessage: WRITE_MESSAGES.updateError,
    handle: updateOneRule,
  },
  {
    // Documented with a trailing slash; trailing slashes are ignored when matching, so the bare
    // collection path works too. The template keeps the documented spelling for the stats.
    method: 'PUT',
    template: `${COLLECTION}/`,
    privilege: 'application_rules:write',
    body: 'multipart-json',
    errorMessage: WRITE_MESSAGES.updateError,
    handle: updateManyRules,
  },
  {
    method: 'DELETE',
    template: COLLECTION,
    privilege: 'application_rules:write',
    body: 'multipart-json',
    errorMessage: WRITE_MESSAGES.deleteError,
    handle: deleteRules,
  },
];
