/** The KIND argument of `wafctl get`: the API's listing names, plus their singulars and underscores. */
import type { ListKind } from '../../api/index.js';
import { didYouMean } from '../../config/suggest.js';
import { WafctlError } from '../../core/errors.js';

export const GET_KINDS: readonly ListKind[] = [
  'groups',
  'rules',
  'application-rules',
  'notifications',
  'schedules',
];

/** What one object of the kind is called in messages. */
export const GET_NOUNS: Readonly<Record<ListKind, string>> = {
  groups: 'group',
  rules: 'rule',
  'application-rules': 'application rule',
  notifications: 'notification',
  schedules: 'schedule',
};

function spellings(kind: ListKind): string[] {
  const singular = kind.replace(/s$/, '');
  return [kind, singular, kind.replaceAll('-', '_'), singular.replaceAll('-', '_')];
}

export function resolveGetKind(name: string): ListKind {
  const found = GET_KINDS.find((kind) => spellings(kind).includes(name));
  if (found !== undefined) return found;
  const suggestion = didYouMean(name, GET_KINDS.flatMap(spellings));
  const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
  throw new WafctlError('USAGE', `unknown kind "${name}"${hint}; expected one of ${GET_KINDS.join(', ')}`, {
    userFault: true,
  });
}
