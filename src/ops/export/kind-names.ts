/**
 * `--kind` values: a kind may be named by its YAML key (`application_rules`), its plan name
 * (`application_rule`), or either with dashes (`application-rules`, as `wafctl get` spells it).
 */

import { WafctlError } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';
import { KINDS, type Kind } from '../../kinds/index.js';
import { cliName, spellingsOf } from '../../kinds/kind.js';

/** The names in `--kind` values (comma-separated lists allowed), trimmed; empty ones included. */
const namesIn = (values: readonly string[] | undefined): string[] =>
  (values ?? []).flatMap((value) => value.split(',')).map((name) => name.trim());

/**
 * Whether `--kind` values name a kind. A family named was asked for: one the server lacks or hides is
 * then an error, as in `get`; without a name every family is read and an absent one is skipped.
 */
export function namesAKind(values: readonly string[] | undefined): boolean {
  return namesIn(values).some((name) => name !== '');
}

/** The kinds named (comma-separated lists allowed), in registry order; every kind when none is named. */
export function resolveKinds(names: readonly string[] | undefined): Kind[] {
  const wanted = namesIn(names);
  if (wanted.every((name) => name === '')) return [...KINDS];
  const chosen = new Set<Kind>();
  for (const name of wanted) {
    if (name === '') continue;
    const kind = KINDS.find((candidate) => spellingsOf(candidate).includes(name));
    if (kind === undefined) {
      const valid = KINDS.map(cliName);
      const suggestion = didYouMean(name, KINDS.flatMap(spellingsOf));
      const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
      throw new WafctlError('USAGE', `unknown kind "${name}"${hint}; expected one of ${valid.join(', ')}`, {
        userFault: true,
      });
    }
    chosen.add(kind);
  }
  return KINDS.filter((kind) => chosen.has(kind));
}
