import { z } from 'zod';
import { type ClientContext, call, paginatedPages } from './context.js';
import { underKey } from './envelope.js';
import { UnconfirmedWriteError } from './errors.js';
import { APPLICATION_RULE_FILTERS, type ApplicationRuleFilters, filtersToQuery } from './filters.js';
import { collect, eachRow } from './paginate.js';
import { type ApplicationRule, applicationRuleSchema } from './records.js';
import type { ReadOptions, RequestSpec } from './request.js';
import { pathSegment } from './url.js';

/** One rule of a create request. */
export interface ApplicationRuleInput {
  actions: { firewall_action: string; firewall_name: string }[];
  conditions: {
    operator: string;
    not_op?: boolean;
    expressions: { expression: string }[];
    targets: { target: string }[];
  }[];
  description: string;
  priority: string;
  rq_host: string;
  username: string;
  enabled?: boolean;
  duration?: number | null;
  start_time?: number | null;
}

/** What an update may change; conditions and actions are replaced by create + delete instead. */
export type ApplicationRuleUpdate = Partial<
  Pick<ApplicationRuleInput, 'description' | 'priority' | 'enabled' | 'duration' | 'start_time'>
>;

export interface ApplicationRulesApi {
  /**
   * Every page, de-duplicated. Rows with `complete: false` carried only a single `action` or no
   * `conditions` and must be re-read with `get` before being compared.
   */
  list(filters?: ApplicationRuleFilters): Promise<ApplicationRule[]>;
  iterate(filters?: ApplicationRuleFilters): AsyncIterable<ApplicationRule>;
  /**
   * The same rows a page at a time (the de-duplicated rows of each page), for bulk readers; with
   * `options.signal`, a reader that may stop waiting (`apply --wait`).
   */
  pages(filters?: ApplicationRuleFilters, options?: ReadOptions): AsyncIterable<ApplicationRule[]>;
  /** Always complete (throws an invalid-response error otherwise). */
  get(id: string, options?: ReadOptions): Promise<ApplicationRule>;
  /**
   * Resolves with the new ids, in the server's order. Never retried (see http.ts). An answer with
   * fewer ids than rules sent is an UnconfirmedWriteError.
   */
  create(rules: readonly ApplicationRuleInput[]): Promise<string[]>;
  /**
   * Updates and deletes resolve with the ids the server says it wrote, which must include every id
   * sent: an answer that leaves one out (`rule_ids: []`) is an UnconfirmedWriteError naming them.
   */
  update(id: string, attrs: ApplicationRuleUpdate): Promise<string[]>;
  updateMany(ids: readonly string[], attrs: ApplicationRuleUpdate): Promise<string[]>;
  delete(ids: readonly string[]): Promise<string[]>;
}

const BASE = '/api/v1/application_rules';
// All writes are documented as multipart/mixed carrying a JSON document (not a multipart body).
const CONTENT_TYPE = 'multipart/mixed';

const pageData = underKey('application_rules', z.array(applicationRuleSchema));
const oneData = underKey(
  'rule',
  applicationRuleSchema.refine((rule) => rule.complete, {
    message: 'expected the full rule (an actions array and conditions)',
  }),
);
const idsData = underKey('rule_ids', z.array(z.string()));

/** The application rules' endpoints (`/api/v1/application_rules`, bodies sent as multipart/mixed). */
export function applicationRulesApi(ctx: ClientContext): ApplicationRulesApi {
  // Filters are checked on the first `next()`, like every other failure of the listing.
  async function* pages(filters: ApplicationRuleFilters = {}, options: ReadOptions = {}) {
    const query = filtersToQuery(APPLICATION_RULE_FILTERS, 'application-rules', filters);
    yield* paginatedPages(ctx, BASE, query, pageData, options);
  }
  const iterate = (filters?: ApplicationRuleFilters) => eachRow(pages(filters));
  const write = async (spec: Omit<RequestSpec, 'contentType'>) =>
    call(ctx, { ...spec, contentType: CONTENT_TYPE }, idsData);
  /**
   * A write of existing rules: done is what `rule_ids` confirms, nothing else. A 200 that leaves an
   * id out may not have written it, and is never taken for done (the applier re-reads).
   */
  const writeIds = async (spec: Omit<RequestSpec, 'contentType'>, ids: readonly string[]) => {
    const answered = await write(spec);
    const confirmed = new Set(answered);
    const sent = [...new Set(ids)];
    const unconfirmed = sent.filter((id) => !confirmed.has(id));
    if (unconfirmed.length > 0) {
      throw new UnconfirmedWriteError(spec, {
        sent: sent.length,
        confirmed: sent.length - unconfirmed.length,
        unconfirmed,
      });
    }
    return answered;
  };
  /** A create: one new id per rule sent (which ids is unknowable; the applier re-reads by key). */
  const writeNew = async (rules: readonly ApplicationRuleInput[]) => {
    const answered = await write({ method: 'POST', path: BASE, body: { rules } });
    const created = new Set(answered).size;
    if (created < rules.length)
      throw new UnconfirmedWriteError(
        { method: 'POST', path: BASE },
        { sent: rules.length, confirmed: created },
      );
    return answered;
  };
  return {
    pages,
    iterate,
    list: async (filters) => collect(iterate(filters)),
    get: async (id, { signal } = {}) =>
      call(
        ctx,
        {
          method: 'GET',
          path: `${BASE}/${pathSegment(id, 'application rule id')}`,
          ...(signal === undefined ? {} : { signal }),
        },
        oneData,
      ),
    // Empty batches are answered locally: there is nothing to send, and no server reply to trust.
    create: async (rules) => (rules.length === 0 ? [] : writeNew(rules)),
    update: async (id, attrs) =>
      writeIds(
        { method: 'PUT', path: `${BASE}/${pathSegment(id, 'application rule id')}`, body: { attrs } },
        [id],
      ),
    // The bulk update is documented with a trailing slash, unlike every other path.
    updateMany: async (ids, attrs) =>
      ids.length === 0
        ? []
        : writeIds({ method: 'PUT', path: `${BASE}/`, body: { attrs, rule_ids: ids } }, ids),
    delete: async (ids) =>
      ids.length === 0 ? [] : writeIds({ method: 'DELETE', path: BASE, body: { rule_ids: ids } }, ids),
  };
}
