/** Plans literal desired objects against a live API through the real kinds, and fakes a killed process, for applier tests. */
import type { ApiClient } from '../../../src/api/index.js';
import type { Attributes, KindName, Plan } from '../../../src/core/model.js';
import { KINDS } from '../../../src/kinds/index.js';
import { planChanges } from '../../../src/plan/planner.js';

export type Desired = Partial<Record<KindName, Attributes[]>>;

/** Every kind named in `desired` is planned with `prune: true`; `protect` per key. */
export async function planLive(
  api: ApiClient,
  desired: Desired,
  protect: ReadonlySet<string> = new Set(),
): Promise<Plan> {
  const kinds = KINDS.filter((kind) => desired[kind.name] !== undefined);
  const inputs = await Promise.all(
    kinds.map(async (kind) => ({
      kind: kind.name,
      immutable: kind.immutable,
      impact: kind.impact,
      scope: { prune: true, match: {} },
      remote: await kind.fetchAll(api, { concurrency: 4 }),
      desired: (desired[kind.name] ?? []).map((attributes) => ({
        key: kind.keyOf(attributes),
        attributes,
        protect: protect.has(kind.keyOf(attributes)),
        ignoreChanges: [],
      })),
    })),
  );
  // The safety threshold is the CLI's business; these tests apply whatever is planned.
  return planChanges(inputs, { safety: { maxDeletePercent: 100, minExisting: 0 } });
}

/** Keys held by more than one live object, per kind: empty when nothing is doubled. */
export async function doubledKeys(api: ApiClient): Promise<string[]> {
  const doubled: string[] = [];
  for (const kind of KINDS) {
    const seen = new Set<string>();
    for (const { key } of await kind.fetchAll(api, { concurrency: 4 })) {
      if (seen.has(key)) doubled.push(`${kind.name}.${key}`);
      seen.add(key);
    }
  }
  return doubled;
}

export const rule = (description: string, expression: string, priority = 'high'): Attributes => ({
  rq_host: 'shop.example.com',
  description,
  priority,
  enabled: true,
  duration: null,
  start_time: null,
  conditions: [{ operator: 'match', not_op: false, expressions: [expression], targets: ['path'] }],
  actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
});

export const group = (name: string, description = '', users = ['u-1001']): Attributes => ({
  name,
  description,
  is_admin: false,
  permissions: [{ permission: 'Explore alerts', service_id: '' }],
  users,
});

export const notification = (name: string, port = 514): Attributes => ({
  name,
  type: 'siem',
  enabled: true,
  settings: { destination_address: '10.0.0.5', destination_port: port, format: 'cef', protocol: 'udp' },
});

export const schedule = (name: string, sendTo = ['secops@example.com']): Attributes => ({
  name,
  hosts: ['shop.example.com'],
  services: null,
  type: 'summary',
  schedule: 'weekly',
  send_to: sendTo,
  send_via: 'email',
  timezone: 'UTC',
});

/**
 * The client of a process that is killed after `writes` write calls: the next write still reaches
 * the server, but its answer is never read and nothing after it is sent. `inFlight` is that write.
 */
export function killedAfter(
  api: ApiClient,
  writes: number,
): { api: ApiClient; inFlight: () => Promise<unknown> } {
  let sent = 0;
  let last: Promise<unknown> = Promise.resolve();
  const dead = new Promise<never>(() => {});
  const wrap = <T extends object>(namespace: T): T =>
    new Proxy(namespace, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (sent > writes) return dead;
          if (!['create', 'update', 'updateMany', 'delete'].includes(String(property)))
            return value.apply(target, args);
          sent += 1;
          if (sent <= writes) return value.apply(target, args);
          last = Promise.resolve(value.apply(target, args)).catch(() => {});
          return last.then(() => dead);
        };
      },
    });
  const killed = {
    ...api,
    groups: wrap(api.groups),
    applicationRules: wrap(api.applicationRules),
    notifications: wrap(api.notifications),
    schedules: wrap(api.schedules),
  };
  return { api: killed, inFlight: () => last };
}
