/**
 * `settings.firewall_actions`: which `firewall_action` values block, observe or allow traffic, for
 * the security impact of plans (src/core/firewall-actions.ts holds the defaults and the matching).
 *
 * - A list given replaces that list's default; the others keep theirs. Lists are leaves of the
 *   `settings` merge, so `blocking` may come from one file and `allowing` from another.
 * - Matching ignores case, and so does this check: an action may be in one list only, counting the
 *   defaults of the lists not given (`observing: [captcha]` alone is an error: `captcha` blocks by
 *   default). Checked on the merged lists, since the two lists may be set in different files.
 */
import * as z from 'zod';
import {
  ACTION_CLASSES,
  type ActionClass,
  DEFAULT_FIREWALL_ACTIONS,
  type FirewallActions,
} from '../core/firewall-actions.js';
import { setOf } from '../core/set-schema.js';
import type { ParsedDocument } from './parse-yaml.js';
import type { ConfigProblem } from './problems.js';
import { formatPath, type YamlPath } from './yaml-path.js';

function actionList(klass: ActionClass, what: string) {
  const defaults = DEFAULT_FIREWALL_ACTIONS[klass];
  return setOf(z.string().min(1), 'action')
    .default([...defaults])
    .meta({
      description: `firewall_action values that ${what}, matched ignoring case. Given, this list replaces the default (${defaults.join(', ')}).`,
    });
}

export const firewallActionsSchema = z
  .strictObject({
    blocking: actionList('blocking', 'stop the request'),
    observing: actionList('observing', 'only record the request'),
    allowing: actionList('allowing', 'let the request through'),
  })
  .prefault({})
  .meta({
    description:
      'Which firewall_action values block, observe or allow, for the Security impact of plans. An action may be in one list only; an action in none is unknown and counts as not blocking.',
  });

const listPath = (klass: ActionClass): YamlPath => ['settings', 'firewall_actions', klass];

/** The document that sets this list (merging allows one at most), or undefined: the default. */
function documentSetting(
  documents: readonly ParsedDocument[],
  klass: ActionClass,
): ParsedDocument | undefined {
  return documents.find((document) => {
    const settings = (document.data as { settings?: { firewall_actions?: Record<string, unknown> } } | null)
      ?.settings;
    return settings?.firewall_actions?.[klass] !== undefined;
  });
}

/**
 * Every action that is in two lists, at its place in a list the files set (the later list when
 * both are set), naming the other list and where it is, or that it is that list's default.
 */
export function firewallActionProblems(
  documents: readonly ParsedDocument[],
  lists: FirewallActions,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const setIn = new Map(ACTION_CLASSES.map((klass) => [klass, documentSetting(documents, klass)]));
  const at = (klass: ActionClass, index: number) => {
    const document = setIn.get(klass)!;
    const path = [...listPath(klass), index];
    return { document, path, ...document.locate(path) };
  };
  ACTION_CLASSES.forEach((first, i) => {
    for (const second of ACTION_CLASSES.slice(i + 1)) {
      const earlier = lists[first].map((action) => action.toLowerCase());
      lists[second].forEach((candidate, index) => {
        const other = earlier.indexOf(candidate.toLowerCase());
        if (other === -1) return;
        // Defaults never overlap, so at least one of the two lists is set in a file.
        const [placed, named, placedIndex, namedIndex] =
          setIn.get(second) !== undefined ? [second, first, index, other] : [first, second, other, index];
        const here = at(placed, placedIndex);
        const action = lists[placed][placedIndex] ?? '';
        const namedAction = lists[named][namedIndex] ?? '';
        const as = namedAction === action ? '' : ` (as ${JSON.stringify(namedAction)})`;
        const rule = 'an action may be in one list only (matched ignoring case)';
        let message: string;
        if (setIn.get(named) === undefined) {
          const defaults = DEFAULT_FIREWALL_ACTIONS[named].join(', ');
          message = `${JSON.stringify(action)} is also in the default ${named} list (${defaults})${as}: ${rule}; set settings.firewall_actions.${named} to a list without it`;
        } else {
          const there = at(named, namedIndex);
          message = `${JSON.stringify(action)} is also in settings.firewall_actions.${named}${as} at ${there.document.file}:${there.line}:${there.col}: ${rule}; remove it from one of them`;
        }
        problems.push({
          file: here.document.file,
          line: here.line,
          col: here.col,
          path: formatPath(here.path),
          message,
        });
      });
    }
  });
  return problems;
}
