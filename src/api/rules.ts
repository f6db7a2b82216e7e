import { z } from 'zod';
import { type ClientContext, call, paginatedPages } from './context.js';
import { underKey } from './envelope.js';
import { filtersToQuery, RULE_FILTERS, type RuleFilters } from './filters.js';
import { collect, eachRow } from './paginate.js';
import { type Rule, ruleSchema } from './records.js';
import { pathSegment } from './url.js';

/** Rules are read-only through this API. */
export interface RulesApi {
  /** Every page, de-duplicated; throws IncompleteListingError rather than return a partial list. */
  list(filters?: RuleFilters): Promise<Rule[]>;
  iterate(filters?: RuleFilters): AsyncIterable<Rule>;
  get(id: string): Promise<Rule>;
}

const BASE = '/api/v1/rules';
const pageData = underKey('rules', z.array(ruleSchema));
const oneData = underKey('rule', ruleSchema);

/** The rules' endpoints (`/api/v1/rules`), read only. */
export function rulesApi(ctx: ClientContext): RulesApi {
  // Filters are checked on the first `next()`, like every other failure of the listing.
  async function* iterate(filters: RuleFilters = {}) {
    const query = filtersToQuery(RULE_FILTERS, 'rules', filters);
    yield* eachRow(paginatedPages(ctx, BASE, query, pageData));
  }
  return {
    iterate,
    list: async (filters) => collect(iterate(filters)),
    get: async (id) => call(ctx, { method: 'GET', path: `${BASE}/${pathSegment(id, 'rule id')}` }, oneData),
  };
}
