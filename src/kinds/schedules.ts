/** Report schedules: keyed by name. Hosts, services and recipients are sets. */
import type { ApiClient, ScheduleInput } from '../api/index.js';
import { added, type ImpactRule, listed, listField, reasonIf } from '../core/impact.js';
import { attributesById, idsByName, type Kind, type RemoteRecord } from './kind.js';
import { sortedSet } from './normalize.js';

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

async function fetchAll(api: ApiClient): Promise<RemoteRecord[]> {
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

export const schedulesKind: Kind<'schedules'> = {
  name: 'schedule',
  section: 'schedules',
  immutable: [],
  attributes: attributesOf,
  fetchAll,
  keyOf: (attributes) => String(attributes.name),
  impact: scheduleImpact,
  writer: {
    bulkCreate: false,
    bulkUpdate: false,
    bulkDelete: true,
    deletesFirst: true,
    async create({ api }, objects) {
      for (const object of objects) await api.schedules.create(object as unknown as ScheduleInput);
    },
    async update({ api }, changes) {
      for (const change of changes)
        await api.schedules.update(change.id, change.after as Partial<ScheduleInput>);
    },
    async delete({ api }, ids) {
      await api.schedules.delete(ids);
    },
    ...idsByName(fetchAll),
    current: async ({ api }, ids) => attributesById(await fetchAll(api), ids),
  },
};
