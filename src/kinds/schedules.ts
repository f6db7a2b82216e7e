/** Report schedules: keyed by name. Hosts, services and recipients are sets. */
import * as z from 'zod';
import type { ApiClient, Schedule } from '../api/index.js';
import { isEmail, isTimezone } from '../core/domain.js';
import { added, type ImpactRule, listed, listField, reasonIf } from '../core/impact.js';
import { setOf } from '../core/set-schema.js';
import { didYouMean } from '../core/suggest.js';
import { fromMicros, list } from './cells.js';
import {
  attributesById,
  changedValues,
  defineGet,
  defineKind,
  idsByName,
  kindObject,
  nonEmptyString,
  type RemoteRecord,
} from './kind.js';
import { sortedSet } from './normalize.js';

const email = z
  .string()
  .refine(isEmail, { error: (issue) => `expected an e-mail address, got ${JSON.stringify(issue.input)}` })
  .meta({ format: 'email' });
const timezone = z
  .string()
  .refine(isTimezone, {
    error: (issue) => {
      const input = String(issue.input);
      const suggestion = didYouMean(input, Intl.supportedValuesOf('timeZone'));
      return `unknown timezone ${JSON.stringify(input)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}`;
    },
  })
  .meta({ description: 'IANA timezone name, e.g. Europe/Paris.' });

/**
 * A report covers hosts, services (domain groups), or both: `hosts: []` is fine when `services` lists
 * one (the API takes such a schedule), but a report on nothing is refused, at `hosts`. Checked even
 * when another field is wrong, so that every problem is reported at once; hence the type guards.
 */
const reportsOnSomething = z.superRefine<{ hosts?: unknown; services?: unknown }>(
  (schedule, ctx) => {
    const { hosts, services } = schedule;
    if (!Array.isArray(hosts) || hosts.length > 0) return;
    if (Array.isArray(services) ? services.length > 0 : services !== null && services !== undefined) return;
    ctx.addIssue({
      code: 'custom',
      path: ['hosts'],
      input: hosts,
      message: `a schedule must report on at least one host or service: hosts is empty and services is ${Array.isArray(services) ? 'empty' : 'null'}`,
    });
  },
  { when: () => true },
);

export const scheduleSchema = kindObject(
  { name: nonEmptyString.meta({ description: 'Schedule name (natural key).' }) },
  {
    hosts: setOf(nonEmptyString, 'host').meta({
      description: 'Hosts reported on; may be [] when services lists at least one.',
    }),
    services: setOf(nonEmptyString, 'service')
      .nullable()
      .default(null)
      .meta({ description: 'Services (domain groups) reported on; null or [] for none.' }),
    type: nonEmptyString,
    schedule: nonEmptyString,
    send_to: setOf(email, 'recipient', { min: 1 }),
    send_via: nonEmptyString,
    timezone,
  },
)
  .check(reportsOnSomething)
  // For editors: at least one host, or at least one service.
  .meta({
    anyOf: [
      { properties: { hosts: { minItems: 1 } }, required: ['hosts'] },
      { properties: { services: { type: 'array', minItems: 1 } }, required: ['services'] },
    ],
  });

interface ScheduleFields {
  name: string;
  hosts: readonly string[];
  services?: readonly string[] | null | undefined;
  type: string;
  schedule: string;
  send_to: readonly string[];
  send_via: string;
  timezone: string;
}

/**
 * `services: []` and `null` both mean "no services" (the spec: "array of string or null"): one
 * normal form, null, so that a server storing one for the other never shows as a change. `hosts` may
 * be empty when services are listed (a services-only report); the configuration refuses both empty.
 */
function servicesOf(services: readonly string[] | null | undefined): string[] | null {
  return services == null || services.length === 0 ? null : sortedSet(services);
}

/** A schedule as compared and shown: its sets sorted, no services as null. */
type ScheduleAttributes = ReturnType<typeof attributesOf>;

function attributesOf(s: ScheduleFields) {
  return {
    name: s.name,
    hosts: sortedSet(s.hosts),
    services: servicesOf(s.services),
    type: s.type,
    schedule: s.schedule,
    send_to: sortedSet(s.send_to),
    send_via: s.send_via,
    timezone: s.timezone,
  };
}

async function fetchAll(api: ApiClient): Promise<RemoteRecord<ScheduleAttributes>[]> {
  const listed = await api.schedules.list();
  return listed.map((s) => ({
    id: s.id,
    key: s.name,
    attributes: attributesOf(s),
    createdAt: s.scheduled_at,
  }));
}

/**
 * Reports carry the firewall's findings: a new recipient is one more person who reads them, a
 * deleted schedule one report nobody receives. Removing recipients or hosts is neutral.
 */
const scheduleImpact: readonly ImpactRule[] = [
  {
    class: 'broadens_access',
    reasons: (s) =>
      listed(
        'recipient added',
        'recipients added',
        added(s, (r) => listField<string>(r, 'send_to')),
      ),
  },
  { class: 'reduces_audit', reasons: (s) => reasonIf(s.action === 'delete', 'deleted') },
];

export const schedulesKind = defineKind({
  name: 'schedule',
  section: 'schedules',
  noun: 'schedule',
  keyFields: ['name'],
  schema: scheduleSchema,
  immutable: [],
  attributes: attributesOf,
  fetchAll,
  impact: scheduleImpact,
  writer: {
    bulkCreate: false,
    bulkUpdate: false,
    bulkDelete: true,
    deletesFirst: true,
    async create({ api }, objects) {
      const ids: string[] = [];
      for (const object of objects) ids.push((await api.schedules.create(object)).id);
      return ids;
    },
    async update({ api }, changes) {
      for (const change of changes) await api.schedules.update(change.id, changedValues(change));
    },
    async delete({ api }, ids) {
      await api.schedules.delete(ids);
    },
    ...idsByName(fetchAll),
    current: async ({ api }, ids) => attributesById(await fetchAll(api), ids),
  },
  get: defineGet<Schedule>({
    columns: [
      { header: 'ID', cell: (s) => s.id },
      { header: 'NAME', cell: (s) => s.name },
      { header: 'TYPE', cell: (s) => s.type },
      { header: 'SCHEDULE', cell: (s) => s.schedule },
      { header: 'SEND_VIA', cell: (s) => s.send_via },
      { header: 'HOSTS', cell: (s) => list(s.hosts) },
      { header: 'SERVICES', cell: (s) => list(s.services) },
      { header: 'TIMEZONE', cell: (s) => s.timezone },
      { header: 'CREATED', cell: (s) => fromMicros(s.scheduled_at) },
    ],
    list: (api, filters) => api.iterateWithFilters('schedules', filters),
    find: {
      by: 'id',
      one: (api, id) => api.schedules.get(id),
      // `name` filters on "all or part" of the name: the exact match is picked from the candidates.
      named: async (api, name) => {
        for await (const schedule of api.schedules.iterate({ name })) {
          if (schedule.name === name) return schedule;
        }
        return undefined;
      },
    },
  }),
});
