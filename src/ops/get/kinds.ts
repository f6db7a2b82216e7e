/**
 * The kinds `wafctl get` reads, derived from the registry of families (src/kinds/) plus the
 * read-only rules, and its KIND argument: each kind's section with dashes (`application-rules`, the
 * API's listing), with underscores (`application_rules`), and its singular, the plan name, spelled
 * either way (`application_rule`, `application-rule`).
 */
import { FILTERS_BY_KIND, type ListKind } from '../../api/index.js';
import { WafctlError } from '../../core/errors.js';
import { didYouMean } from '../../core/suggest.js';
import { KINDS } from '../../kinds/index.js';
import { cliName, type GetSpec, type Kind, spellingsOf } from '../../kinds/kind.js';
import { rules } from './rules.js';

/** What `get` needs of a family: its names, its noun and its `get`. The rules have this shape too. */
export type Readable = Pick<Kind, 'name' | 'section' | 'noun' | 'get'>;

export interface GetKind {
  /** The name of the listing and of messages: the section with dashes (`application-rules`). */
  name: ListKind;
  /** What one object is called in messages (`application rule`). */
  noun: string;
  /** Every spelling the KIND argument takes. */
  spellings: readonly string[];
  spec: GetSpec;
}

function isListKind(name: string): name is ListKind {
  return Object.hasOwn(FILTERS_BY_KIND, name);
}

function getKind(kind: Readable): GetKind {
  const listing = cliName(kind);
  // A family without a listing in the client (src/api/) cannot be read: a mistake of wafctl's.
  if (!isListKind(listing)) throw new Error(`get: the API client has no listing "${listing}"`);
  return { name: listing, noun: kind.noun, spellings: spellingsOf(kind), spec: kind.get };
}

/**
 * The registry's families, in its order, with the read-only rules just before the application rules
 * (the rules the firewall ships, then the ones users write), or last if there are none.
 */
function withRules(families: readonly Readable[]): Readable[] {
  const at = families.findIndex((family) => family.section === 'application_rules');
  const before = at === -1 ? families.length : at;
  return [...families.slice(0, before), rules, ...families.slice(before)];
}

/** Every kind `get` reads, in the order messages list them. */
export const GET_KINDS: readonly GetKind[] = withRules(KINDS).map(getKind);

/** The kind named by one of its spellings; a usage error, with a suggestion, for anything else. */
export function resolveGetKind(name: string): ListKind {
  const found = GET_KINDS.find((kind) => kind.spellings.includes(name));
  if (found !== undefined) return found.name;
  const suggestion = didYouMean(
    name,
    GET_KINDS.flatMap((kind) => kind.spellings),
  );
  const hint = suggestion ? ` (did you mean "${suggestion}"?)` : '';
  const expected = GET_KINDS.map((kind) => kind.name).join(', ');
  throw new WafctlError('USAGE', `unknown kind "${name}"${hint}; expected one of ${expected}`, {
    userFault: true,
  });
}

/** The kind `resolveGetKind` named. */
export function getKindNamed(name: ListKind): GetKind {
  const found = GET_KINDS.find((kind) => kind.name === name);
  if (found === undefined) throw new Error(`get: no kind "${name}"`);
  return found;
}
