/**
 * Desired-state configurations as a repository would hold them: YAML files, rules split over
 * several files, written to a temporary directory that wafctl then loads like `wafctl plan DIR`.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { BENCH_USERNAME, groupYaml, indices, notificationYaml, ruleYaml, scheduleYaml } from './fixtures.js';

/** Rules per file: a large rule set is split by team or host in practice, not kept in one file. */
const RULES_PER_FILE = 1_000;

export interface ConfigContent {
  rules: number;
  groups: number;
  notifications: number;
  schedules: number;
  /** Priority of every rule (the apply-update scenario changes it). */
  priority?: string;
  /** Prune application rules that no file declares (the apply-delete scenario). */
  pruneRules?: boolean;
  /** wafctl.yaml's `environments:` (the fleet scenario), each reading the whole root. */
  environments?: Record<string, { url: string; token_env: string; paths: string[] }>;
}

function files(content: ConfigContent): Record<string, unknown> {
  const out: Record<string, unknown> = {
    'wafctl.yaml': {
      settings: {
        username: BENCH_USERNAME,
        // Deleting every rule is the point of the apply-delete scenario, as `apply --force` would allow.
        safety: { max_delete_percent: 100, min_existing: 10 },
      },
      ...(content.pruneRules ? { manage: { application_rules: { prune: true } } } : {}),
      ...(content.environments ? { environments: content.environments } : {}),
    },
  };
  const rules = indices(content.rules);
  for (let start = 0; start < rules.length; start += RULES_PER_FILE) {
    const name = `rules/rules-${String(start / RULES_PER_FILE).padStart(3, '0')}.yaml`;
    out[name] = {
      application_rules: rules.slice(start, start + RULES_PER_FILE).map((i) => ruleYaml(i, content.priority)),
    };
  }
  if (content.groups > 0) out['groups.yaml'] = { groups: indices(content.groups).map(groupYaml) };
  if (content.notifications > 0) {
    out['notifications.yaml'] = { notifications: indices(content.notifications).map(notificationYaml) };
  }
  if (content.schedules > 0)
    out['schedules.yaml'] = { schedules: indices(content.schedules).map(scheduleYaml) };
  return out;
}

/** Writes the configuration into a new temporary directory and returns its path. */
export async function writeConfigDir(content: ConfigContent): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-bench-'));
  await mkdir(join(dir, 'rules'));
  for (const [name, document] of Object.entries(files(content))) {
    await writeFile(join(dir, name), stringify(document, { lineWidth: 0 }));
  }
  return dir;
}
