/**
 * The text of `wafctl get`'s table cells, shared by the families' columns: timestamps as ISO dates
 * (groups carry ISO strings; rules, application rules and schedules carry UNIX microseconds), absent
 * values as empty cells. JSON and YAML show the records as the API sent them.
 */

/** `2024-03-01T09:00:00Z`: to the second, which is what a person reads; JSON and YAML keep it all. */
function isoDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** UNIX microseconds as an ISO date; absent or null is empty, and a value no date can hold is shown as is. */
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

/** A text, absent or null as empty. */
export const text = (value: string | null | undefined): string => value ?? '';

/** A list of names, comma-separated (`shop.example.com,api.example.com`); absent or null is empty. */
export const list = (values: readonly string[] | null | undefined): string => values?.join(',') ?? '';

/** `true` or `false`; absent is empty. */
export const flag = (value: boolean | undefined): string => (value === undefined ? '' : String(value));

/** `10.0.0.5:514`, `[2001:db8::1]:514`. */
export function endpoint(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}
