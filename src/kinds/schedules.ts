/** Report schedules: keyed by name. Hosts, services and recipients are sets. */
import type { Schedule } from '../api/index.js';
import type { Kind } from './kind.js';
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

function attributesOf(s: ScheduleFields) {
  return {
    name: s.name,
    hosts: sortedSet(s.hosts),
    services: s.services == null ? null : sortedSet(s.services),
    type: s.type,
    schedule: s.schedule,
    send_to: sortedSet(s.send_to),
    send_via: s.send_via,
    timezone: s.timezone,
  };
}

export const schedulesKind: Kind<'schedules'> = {
  name: 'schedule',
  section: 'schedules',
  immutable: [],
  key: (schedule) => schedule.name,
  attributes: attributesOf,
  async fetchAll(api) {
    const listed: Schedule[] = await api.schedules.list();
    return listed.map((s) => ({ id: s.id, key: s.name, attributes: attributesOf(s) }));
  },
};
