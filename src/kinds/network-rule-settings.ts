/**
 * The network-rule settings (`GET`/`PUT /api/v1/settings/rules`,
 * https://docs.seerbox.it/api/settings/network_rules): how network rules are made by automation
 * and the IP allowlist (`automation.whitelist`, "the list of IP addresses authorised to access
 * services and resources"). A singleton section, written with exactly the API's shape:
 *
 *   network_rule_settings:
 *     automation: {enable: true, default_duration_minutes: 1440, update_firewall: true, whitelist: [10.0.0.1]}
 *     expire_strategy: delete
 *
 * Every field is optional: a field left out (at either level) is not managed, so it is neither
 * compared nor sent. The whitelist is a set (order and duplicates mean nothing; it is sorted).
 */

import * as z from 'zod';
import type { ApiClient, NetworkRuleSettings, NetworkRuleSettingsUpdate } from '../api/index.js';
import { canonicalNetwork, EXPIRE_STRATEGIES, isAddressOrNetwork, isEveryAddress } from '../core/domain.js';
import { WafctlError } from '../core/errors.js';
import { added, type ImpactRule, type ImpactSubject, listed } from '../core/impact.js';
import type { Attributes } from '../core/model.js';
import { setOf } from '../core/set-schema.js';
import { flag } from './cells.js';
import { defineGet, defineKind, type FetchOptions, type RemoteRecord } from './kind.js';

export const SECTION = 'network_rule_settings';

const whitelistEntry = z.string().refine(isAddressOrNetwork, {
  error: (issue) =>
    `expected an IPv4 or IPv6 address or a CIDR network (10.1.0.0/16), got ${JSON.stringify(issue.input)}`,
});

export const networkRuleSettingsSchema = z.strictObject({
  automation: z
    .strictObject({
      enable: z.boolean().optional().meta({ description: 'Network rules are created by automation.' }),
      default_duration_minutes: z
        .int()
        .min(1)
        .optional()
        .meta({ description: "A network rule's default duration, in minutes." }),
      update_firewall: z
        .boolean()
        .optional()
        .meta({ description: 'A rule is loaded on the firewall after its creation.' }),
      whitelist: setOf(whitelistEntry, 'address')
        .optional()
        .meta({ description: 'IP addresses and CIDR networks authorised to access services and resources.' }),
    })
    .optional(),
  expire_strategy: z
    .enum(EXPIRE_STRATEGIES)
    .optional()
    .meta({ description: 'What happens to a network rule when it expires.' }),
});

type Automation = Partial<NetworkRuleSettings['automation']>;

/** The settings as compared and shown: the declared fields only (a remote one is cut to them). */
export interface NetworkRuleSettingsAttributes extends Attributes {
  automation?: Automation;
  expire_strategy?: string;
}

function withoutUndefined<T extends object>(object: T): T {
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined)) as T;
}

function attributesOf(desired: z.output<typeof networkRuleSettingsSchema>): NetworkRuleSettingsAttributes {
  const attributes: NetworkRuleSettingsAttributes = {};
  if (desired.automation !== undefined) {
    const { whitelist, ...rest } = desired.automation;
    attributes.automation = withoutUndefined({
      ...rest,
      whitelist: whitelist === undefined ? undefined : networks(whitelist),
    });
  }
  if (desired.expire_strategy !== undefined) attributes.expire_strategy = desired.expire_strategy;
  return attributes;
}

/** Allowlist entries as compared: each network written one way (`canonicalNetwork`), once, sorted. */
function networks(entries: readonly string[]): string[] {
  return [...new Set(entries.map(canonicalNetwork))].sort();
}

/** The whole remote settings, the whitelist sorted. */
function remoteAttributes(settings: NetworkRuleSettings): NetworkRuleSettingsAttributes {
  const { default_duration_minutes, enable, update_firewall, whitelist } = settings.automation;
  return {
    automation: { enable, default_duration_minutes, update_firewall, whitelist: networks(whitelist) },
    expire_strategy: settings.expire_strategy,
  };
}

/** `remote` cut to the fields `desired` declares (a field left out is not managed). */
function cutTo(
  remote: NetworkRuleSettingsAttributes,
  desired: NetworkRuleSettingsAttributes,
): NetworkRuleSettingsAttributes {
  const cut: NetworkRuleSettingsAttributes = {};
  if (desired.automation !== undefined && remote.automation !== undefined) {
    const fields = Object.keys(desired.automation) as (keyof Automation)[];
    cut.automation = Object.fromEntries(fields.map((field) => [field, remote.automation?.[field]]));
  }
  if (desired.expire_strategy !== undefined) cut.expire_strategy = remote.expire_strategy;
  return cut;
}

async function fetchAll(
  api: ApiClient,
  options: FetchOptions<NetworkRuleSettingsAttributes>,
): Promise<RemoteRecord<NetworkRuleSettingsAttributes>[]> {
  const whole = remoteAttributes(await api.networkRuleSettings.get());
  const desired = options.desired?.(SECTION);
  const attributes = desired === undefined ? whole : cutTo(whole, desired);
  return [{ id: SECTION, key: SECTION, attributes }];
}

const automationOf = (a: Attributes): Automation => (a.automation ?? {}) as Automation;

/** `field` of automation goes from anything but `false` to `false` (both sides declare it). */
function turnedOff(subject: ImpactSubject, field: 'enable' | 'update_firewall'): boolean {
  const { before, after } = subject;
  if (before === undefined || after === undefined) return false;
  const was = automationOf(before)[field];
  return was !== undefined && was !== false && automationOf(after)[field] === false;
}

/** What a change of the settings does to security. */
const networkRuleSettingsImpact: readonly ImpactRule[] = [
  {
    // An address or network added to the allowlist is let in: never blocked by network rules.
    class: 'broadens_access',
    reasons: (s) => {
      if (s.before === undefined || automationOf(s.before).whitelist === undefined) return [];
      const entries = added(s, (a) => automationOf(a).whitelist ?? []);
      // Every address: no network rule blocks anyone any more, whatever else the list holds.
      const everyone = entries
        .filter(isEveryAddress)
        .map((entry) => `whitelist opens to every address: ${entry}`);
      return [
        ...everyone,
        ...listed(
          'whitelist address added',
          'whitelist addresses added',
          entries.filter((e) => !isEveryAddress(e)),
        ),
      ];
    },
  },
  {
    class: 'weakens_protection',
    reasons: (s) => (turnedOff(s, 'enable') ? ['automation disabled (enable: true -> false)'] : []),
  },
  {
    class: 'weakens_protection',
    reasons: (s) =>
      turnedOff(s, 'update_firewall')
        ? ['rules no longer loaded on the firewall (update_firewall: true -> false)']
        : [],
  },
];

/** The PUT's body: the changed fields; a changed `automation` sends only the fields that differ. */
function updateBody(
  before: NetworkRuleSettingsAttributes | undefined,
  after: NetworkRuleSettingsAttributes,
  fields: readonly string[],
): NetworkRuleSettingsUpdate {
  const body: NetworkRuleSettingsUpdate = {};
  if (fields.includes('automation') && after.automation !== undefined) {
    const was = before?.automation ?? {};
    const now = after.automation;
    body.automation = Object.fromEntries(
      (Object.keys(now) as (keyof Automation)[])
        .filter((field) => JSON.stringify(now[field]) !== JSON.stringify(was[field]))
        .map((field) => [field, now[field]]),
    );
  }
  if (fields.includes('expire_strategy') && after.expire_strategy !== undefined) {
    body.expire_strategy = after.expire_strategy;
  }
  return body;
}

const neverCalled = (what: string) =>
  new WafctlError('PLAN_REFUSED', `the network-rule settings always exist: wafctl never ${what}s them`);

export const networkRuleSettingsKind = defineKind({
  name: 'network_rule_settings',
  section: SECTION,
  noun: 'network-rule settings',
  keyFields: [],
  singleton: true,
  schema: networkRuleSettingsSchema,
  immutable: [],
  attributes: attributesOf,
  fetchAll,
  impact: networkRuleSettingsImpact,
  writer: {
    bulkCreate: false,
    bulkUpdate: false,
    bulkDelete: false,
    deletesFirst: false,
    async create() {
      throw neverCalled('create');
    },
    async update({ api }, changes) {
      for (const change of changes) {
        const before = remoteAttributes(await api.networkRuleSettings.get());
        await api.networkRuleSettings.update(updateBody(before, change.after, change.fields));
      }
    },
    async delete() {
      throw neverCalled('delete');
    },
    idsByKey: async () => new Map([[SECTION, [SECTION]]]),
    current: async ({ api }, ids) =>
      ids.includes(SECTION)
        ? new Map([[SECTION, remoteAttributes(await api.networkRuleSettings.get())]])
        : new Map(),
  },
  get: defineGet<NetworkRuleSettings>({
    columns: [
      { header: 'ENABLE', cell: (s) => flag(s.automation.enable) },
      { header: 'UPDATE_FIREWALL', cell: (s) => flag(s.automation.update_firewall) },
      { header: 'DEFAULT_DURATION_MINUTES', cell: (s) => String(s.automation.default_duration_minutes) },
      { header: 'EXPIRE_STRATEGY', cell: (s) => s.expire_strategy },
      { header: 'WHITELIST', cell: (s) => s.automation.whitelist.join(', ') },
    ],
    list: (api, filters) => api.iterateWithFilters('network-rule-settings', filters),
    find: {
      by: 'name',
      one: async (api, name) => {
        if (name !== SECTION && name !== SECTION.replaceAll('_', '-')) {
          throw new WafctlError('USAGE', `the network-rule settings are one object, named ${SECTION}`, {
            userFault: true,
          });
        }
        return api.networkRuleSettings.get();
      },
    },
  }),
});
