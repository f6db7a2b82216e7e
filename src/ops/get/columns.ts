/**
 * The table columns of `wafctl get`, per kind: the id, the fields a person recognises an object by,
 * its state, and its timestamps as ISO dates (groups carry ISO strings; rules, application rules and
 * schedules carry UNIX microseconds). JSON and YAML show everything; the table shows what fits.
 */
import type { ListKind, RecordsByKind } from '../../api/index.js';

export interface Column<T> {
  header: string;
  cell(row: T): string;
}

/** `2024-03-01T09:00:00Z`: to the second, which is what a person reads; JSON and YAML keep it all. */
function isoDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function fromMicros(micros: number | null | undefined): string {
  if (micros === null || micros === undefined) return '';
  const date = new Date(Math.floor(micros / 1000));
  return Number.isNaN(date.getTime()) ? String(micros) : isoDate(date);
}

/** Normalises an ISO string to the same shape as the other timestamps; anything else is shown as is. */
export function fromIso(text: string | undefined): string {
  if (text === undefined) return '';
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? text : isoDate(date);
}

const text = (value: string | null | undefined): string => value ?? '';
const flag = (value: boolean | undefined): string => (value === undefined ? '' : String(value));

/** `10.0.0.5:514`, `[2001:db8::1]:514`. */
function endpoint(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}

export const COLUMNS: { [K in ListKind]: readonly Column<RecordsByKind[K]>[] } = {
  groups: [
    { header: 'ID', cell: (g) => g.id },
    { header: 'NAME', cell: (g) => g.name },
    { header: 'ADMIN', cell: (g) => flag(g.is_admin) },
    { header: 'DESCRIPTION', cell: (g) => text(g.description) },
    { header: 'CREATED', cell: (g) => fromIso(g.created_at) },
    { header: 'UPDATED', cell: (g) => fromIso(g.updated_at) },
  ],
  rules: [
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
  'application-rules': [
    { header: 'ID', cell: (r) => r.id },
    { header: 'RQ_HOST', cell: (r) => r.rq_host },
    { header: 'DESCRIPTION', cell: (r) => text(r.description) },
    { header: 'PRIORITY', cell: (r) => r.priority },
    { header: 'ENABLED', cell: (r) => flag(r.enabled) },
    { header: 'USERNAME', cell: (r) => text(r.username) },
    { header: 'CREATED', cell: (r) => fromMicros(r.timestamp_create) },
    { header: 'UPDATED', cell: (r) => fromMicros(r.timestamp_update) },
  ],
  notifications: [
    { header: 'NAME', cell: (n) => n.name },
    { header: 'TYPE', cell: (n) => n.type },
    { header: 'ENABLED', cell: (n) => flag(n.enabled) },
    {
      header: 'DESTINATION',
      cell: (n) => endpoint(n.settings.destination_address, n.settings.destination_port),
    },
    { header: 'FORMAT', cell: (n) => n.settings.format },
    { header: 'PROTOCOL', cell: (n) => n.settings.protocol },
  ],
  schedules: [
    { header: 'ID', cell: (s) => s.id },
    { header: 'NAME', cell: (s) => s.name },
    { header: 'TYPE', cell: (s) => s.type },
    { header: 'SCHEDULE', cell: (s) => s.schedule },
    { header: 'SEND_VIA', cell: (s) => s.send_via },
    { header: 'HOSTS', cell: (s) => s.hosts.join(',') },
    { header: 'TIMEZONE', cell: (s) => s.timezone },
    { header: 'CREATED', cell: (s) => fromMicros(s.scheduled_at) },
  ],
};
