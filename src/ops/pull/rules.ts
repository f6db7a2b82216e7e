/**
 * How `wafctl pull` writes and compares each family's values (`PullRules`, used by decide.ts): as
 * export writes them, defaults omitted, and members by username in the style of the author's file.
 */
import { sameJson } from '../../core/canonical.js';
import type { KindName } from '../../core/model.js';
import type { Kind } from '../../kinds/index.js';
import { type UserDirectory, withUsernames } from '../../kinds/users.js';
import { omitDefaults } from '../export/defaults.js';
import type { PullRules } from './decide.js';

/** The rules of each of `kinds`, by name (`users`: the user directory, when it was read). */
export function pullRules(
  kinds: readonly Kind[],
  users: UserDirectory | undefined,
): Record<KindName, PullRules> {
  return Object.fromEntries(kinds.map((kind) => [kind.name, rulesOf(kind, users)])) as Record<
    KindName,
    PullRules
  >;
}

/**
 * How `kind`'s values are written and compared. With the user directory, members (`userFields`) are
 * written by username, as export writes them (unless the file's list is written by id), and a file's
 * member means a live one when it resolves to that user's id (a file may name `alice` where the
 * firewall holds her id).
 */
function rulesOf(kind: Kind, users: UserDirectory | undefined): PullRules {
  const schema = kind.schema;
  const isMembers = (field: string) => users !== undefined && (kind.userFields ?? []).includes(field);
  return {
    fileValue(field, value, raw) {
      // Members by username, unless the file writes this list by id: the author's style is kept.
      const listed = raw[field];
      const byId = Array.isArray(listed) && listed.some((m) => typeof m === 'string' && users?.isId(m));
      const named =
        isMembers(field) && users !== undefined && !byId
          ? withUsernames(kind, { [field]: value }, users)[field]
          : value;
      const kept = omitDefaults({ [field]: named }, schema) as Record<string, unknown>;
      return Object.hasOwn(kept, field) ? kept[field] : named;
    },
    sameMember(field, raw, member, live) {
      if (isMembers(field) && users !== undefined && typeof member === 'string') {
        const found = users.resolve(member);
        return 'id' in found && found.id === live;
      }
      const parsed = schema.safeParse({ ...raw, [field]: [member] });
      if (!parsed.success) return false;
      const members = kind.attributes(parsed.data)[field];
      return Array.isArray(members) && members.length === 1 && sameJson(members[0], live);
    },
  };
}
