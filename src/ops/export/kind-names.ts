/**
 * `--kind` values: a kind may be named by its YAML key (`application_rules`), its plan name
 * (`application_rule`), or either with dashes (`application-rules`, as `wafctl get` spells it).
 */

import { WafctlError } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';
import { KINDS, type Kind } from '../../kinds/index.js';
import { cliName, spellingsOf } from '../../kinds/kind.js';

/** The kinds named (comma-separated lists allowed), in registry order; every kind when none is named. */
export function resolveKinds(names: readonly string[] | undefined): Kind[] {
  const wanted = (names ?? []).flatMap((name) => name.split(',')).map((name) => name.trim());
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
