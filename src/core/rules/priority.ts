/**
 * The order in which rules decide (docs/rule-tests.md, "How wafctl evaluates a request"): the
 * vendor's "Priority: Lower values represents higher priority", the named levels first, and the rule
 * key where the vendor is silent (ties).
 */

/** The named levels, highest first (matched ignoring case). */
const NAMED_LEVELS = ['high', 'medium', 'low'];

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/u;

/** 0..2 for a named level, 3 for a number, 4 for any other name. */
function tierOf(priority: string): number {
  const named = NAMED_LEVELS.indexOf(priority.toLowerCase());
  if (named !== -1) return named;
  return NUMBER.test(priority.trim()) ? NAMED_LEVELS.length : NAMED_LEVELS.length + 1;
}

/** Code-unit order: the same on every machine (no locale). */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Priority order: negative when `a` decides before `b`. `high` < `medium` < `low` (ignoring case),
 * then numeric priorities ascending (`"01"` and `"1"` tie), then any other name alphabetically
 * (ignoring case first). Zero is a tie, which the caller breaks by rule key.
 */
export function comparePriority(a: string, b: string): number {
  const tier = tierOf(a) - tierOf(b);
  if (tier !== 0) return tier;
  if (tierOf(a) === NAMED_LEVELS.length) return Math.sign(Number(a.trim()) - Number(b.trim()));
  if (tierOf(a) < NAMED_LEVELS.length) return 0;
  return byText(a.toLowerCase(), b.toLowerCase()) || byText(a, b);
}

/** The order in which rules decide: priority, then key (the vendor's docs are silent on ties). */
export function compareRuleOrder(
  a: { readonly priority: string; readonly key: string },
  b: { readonly priority: string; readonly key: string },
): number {
  return comparePriority(a.priority, b.priority) || byText(a.key, b.key);
}
