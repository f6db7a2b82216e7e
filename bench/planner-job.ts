/**
 * The pure planner alone: N desired and N remote application rules, built directly in the shape the
 * kinds hand to the planner (no YAML, no HTTP). Mostly unchanged, as in a real nightly run, with a
 * few of every action: 1% updates, 0.1% replacements, 1% creates and 1% pruned deletes.
 */
import type { Attributes } from '../src/core/model.js';
import { type DesiredObject, planChanges, type RemoteObject } from '../src/plan/planner.js';
import { type JobOutcome, phaseClock } from './jobs.js';

function attributes(i: number, priority: string, expression: string): Attributes {
  return {
    rq_host: `app-${i % 100}.bench.example.com`,
    description: `Block probe ${i}`,
    priority,
    enabled: true,
    duration: null,
    start_time: null,
    conditions: [{ operator: 'match', not_op: false, expressions: [expression], targets: ['path'] }],
    actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
  };
}

const keyOf = (i: number) => `app-${i % 100}.bench.example.com/Block probe ${i}`;

export function syntheticInputs(n: number): { desired: DesiredObject[]; remote: RemoteObject[] } {
  const desired: DesiredObject[] = [];
  const remote: RemoteObject[] = [];
  const extra = Math.floor(n / 100);
  for (let i = 0; i < n; i++) {
    desired.push({
      key: keyOf(i),
      attributes: attributes(i, 'high', `^/probe/${i}/`),
      protect: false,
      ignoreChanges: [],
    });
    if (i % 100 === 99) continue; // not live yet: a create
    const priority = i % 100 === 0 ? 'low' : 'high'; // an update
    const expression = i % 1000 === 1 ? `^/old-probe/${i}/` : `^/probe/${i}/`; // a replacement
    remote.push({ key: keyOf(i), id: String(i + 1), attributes: attributes(i, priority, expression) });
  }
  // Live but no longer declared: pruned.
  for (let i = n; i < n + extra; i++) {
    remote.push({ key: keyOf(i), id: String(i + 1), attributes: attributes(i, 'high', `^/probe/${i}/`) });
  }
  return { desired, remote };
}

export async function plannerJob(job: { objects: number }): Promise<JobOutcome> {
  const clock = phaseClock();
  const { desired, remote } = syntheticInputs(job.objects);
  clock.lap('build inputs');
  const plan = planChanges([
    {
      kind: 'application_rule',
      immutable: ['conditions', 'actions'],
      scope: { prune: true, match: { rq_host: ['*.example.com'] } },
      desired,
      remote,
    },
  ]);
  clock.lap('plan');
  const { create, update, replace, delete: deletes, unchanged } = plan.summary;
  return {
    phases: clock.phases,
    measuredPhase: 'plan',
    counts: {
      desired: desired.length,
      remote: remote.length,
      create,
      update,
      replace,
      delete: deletes,
      unchanged,
    },
  };
}
