/**
 * What a rule's `firewall_action` does to traffic: block it, observe it, or let it through. The API
 * accepts any string, so the meaning of each value is configuration (`settings.firewall_actions`);
 * these defaults cover the vendor's documented values and the usual synonyms. The security impact
 * rules of application rules read it; the configuration validates and resolves it.
 */

export const ACTION_CLASSES = ['blocking', 'observing', 'allowing'] as const;
export type ActionClass = (typeof ACTION_CLASSES)[number];

/** The actions of each class, as configured (matched ignoring case). */
export type FirewallActions = Readonly<Record<ActionClass, readonly string[]>>;

export const DEFAULT_FIREWALL_ACTIONS: FirewallActions = {
  blocking: ['block', 'deny', 'drop', 'reject', 'captcha'],
  observing: ['log', 'monitor', 'alert', 'count'],
  allowing: ['allow', 'bypass', 'whitelist'],
};

/**
 * The class of one action, ignoring case (`Block` is `block`: the vendor's UI capitalises, scripts
 * do not). An action in no list is `unknown`, which counts as not blocking: moving a rule from
 * `block` to a value nobody classified must not pass review silently.
 */
export function actionClass(actions: FirewallActions, action: string): ActionClass | 'unknown' {
  const wanted = action.toLowerCase();
  for (const klass of ACTION_CLASSES) {
    if (actions[klass].some((known) => known.toLowerCase() === wanted)) return klass;
  }
  return 'unknown';
}
