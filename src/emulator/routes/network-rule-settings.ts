/**
 * /api/v1/settings/rules: the network-rule settings, one object that always exists (read and
 * updated, never created or deleted), as https://docs.seerbox.it/api/settings/network_rules
 * documents it: GET answers `data.settings` ("List of rules settings"); PUT takes the fields to
 * change (`automation` may hold only some of its fields) and answers the updated settings ("Rules
 * settings updated"; 400 "Error updating rules settings"; 403 "Forbidden").
 *
 * Who may: the admin token, a member of an admin group, or a member of a group with "Load network
 * rules" (the spec's "Load source rules", id 3). The vendor's permissions page
 * (https://docs.seerbox.it/main/configuration/authentication-and-authorization) names two candidates,
 * "Handle firewalls" (view, add, edit or delete firewalls) and "Load network rules" (translation and
 * sending of network rules to the enabled firewall); these settings decide how network rules are
 * made and loaded onto the firewall (`automation.update_firewall`, their duration, their expiry,
 * the addresses never blocked), so "Load network rules" is the one required. "Handle firewalls" is
 * not in the spec's permission catalog either.
 */

import { z } from 'zod';
import { EXPIRE_STRATEGIES, isAddressOrNetwork } from '../../core/domain.js';
import { RULE_SETTINGS } from '../collections.js';
import { RULE_SETTINGS_ID, type RuleSettings } from '../records.js';
import { changed, fail, ok, type Route, type RouteResult } from '../router.js';
import { parseWith } from '../validation.js';

const MESSAGES = {
  list: 'List of rules settings',
  retrieveError: 'Error retrieving rules settings',
  updated: 'Rules settings updated',
  updateError: 'Error updating rules settings',
} as const;

const whitelistEntry = z.string().refine(isAddressOrNetwork, {
  error: (issue) => `expected an IP address or a CIDR network, got ${JSON.stringify(issue.input)}`,
});

const updateBody = z
  .strictObject({
    automation: z
      .strictObject({
        default_duration_minutes: z.int().min(1),
        enable: z.boolean(),
        update_firewall: z.boolean(),
        whitelist: z.array(whitelistEntry),
      })
      .partial(),
    expire_strategy: z.enum(EXPIRE_STRATEGIES),
  })
  .partial();

/** The record as the API shows it: without the emulator's id. */
function shown({ automation, expire_strategy }: RuleSettings): Record<string, unknown> {
  return { settings: { automation, expire_strategy } };
}

function current(settings: RuleSettings | undefined): RuleSettings {
  if (settings === undefined) throw new Error('the network-rule settings are missing from the store');
  return settings;
}

const TEMPLATE = '/api/v1/settings/rules';

export const networkRuleSettingsRoutes: Route[] = [
  {
    method: 'GET',
    template: TEMPLATE,
    privilege: 'rule_settings',
    body: 'none',
    errorMessage: MESSAGES.retrieveError,
    handle: ({ store }) =>
      ok(MESSAGES.list, shown(current(store.collection(RULE_SETTINGS).get(RULE_SETTINGS_ID)))),
  },
  {
    method: 'PUT',
    template: TEMPLATE,
    privilege: 'rule_settings',
    body: 'json',
    errorMessage: MESSAGES.updateError,
    handle: ({ body, store }): RouteResult => {
      const parsed = parseWith(updateBody, body);
      if (!parsed.ok) return fail(MESSAGES.updateError, parsed.errors);
      const before = current(store.collection(RULE_SETTINGS).get(RULE_SETTINGS_ID));
      const { automation, expire_strategy } = parsed.value;
      const updated: RuleSettings = {
        id: RULE_SETTINGS_ID,
        // JSON has no `undefined`: a field the body leaves out keeps its value.
        automation: { ...before.automation, ...automation },
        expire_strategy: expire_strategy ?? before.expire_strategy,
      };
      store.collection(RULE_SETTINGS).set(RULE_SETTINGS_ID, updated);
      return changed(MESSAGES.updated, shown(updated));
    },
  },
];
