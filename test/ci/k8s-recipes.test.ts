/**
 * The Kubernetes recipe (examples/k8s/): every document is valid against the Kubernetes schemas of
 * the npm package kubernetes-models (validators generated with ajv from the Kubernetes OpenAPI
 * specification, batch/v1 with completionMode, backoffLimitPerIndex and podFailurePolicy), and the
 * container's script maps the 0-based JOB_COMPLETION_INDEX to wafctl's 1-based `--shard K/N`, run
 * with `sh` against a stub wafctl.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Model } from '@kubernetes-models/base';
import { CronJob } from 'kubernetes-models/batch/v1/CronJob';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const K8S = join(ROOT, 'examples', 'k8s');
const RECIPE = join(K8S, 'fleet-drift-cronjob.yaml');

/** The kinds the recipes use, each with the package's model (its schema). */
const MODELS: Record<string, new (data: object) => Model<unknown>> = {
  'batch/v1 CronJob': CronJob,
  'v1 PersistentVolumeClaim': PersistentVolumeClaim,
};

interface Manifest {
  apiVersion: string;
  kind: string;
  [field: string]: unknown;
}

const documents = (text: string): Manifest[] =>
  parseAllDocuments(text).map((document) => {
    if (document.errors.length > 0) throw document.errors[0];
    return document.toJS() as Manifest;
  });

/** The schema's complaints about one document (none when valid); an unknown kind is one. */
function problems(manifest: Manifest): string[] {
  const Model = MODELS[`${manifest.apiVersion} ${manifest.kind}`];
  if (Model === undefined) return [`no schema for ${manifest.apiVersion} ${manifest.kind}`];
  try {
    new Model(manifest).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

const cronJob = async () =>
  documents(await readFile(RECIPE, 'utf8')).find((manifest) => manifest.kind === 'CronJob') as Manifest &
    CronJobShape;

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string }[];
}
interface CronJobShape {
  spec: {
    concurrencyPolicy: string;
    jobTemplate: {
      spec: {
        completionMode: string;
        completions: number;
        parallelism: number;
        template: { spec: { containers: Container[]; restartPolicy: string } };
      };
    };
  };
}

describe('the Kubernetes recipe', () => {
  it('every manifest is valid against the Kubernetes schemas', async () => {
    expect((await readdir(K8S)).sort()).toEqual(['fleet-drift-cronjob.yaml']);
    const manifests = documents(await readFile(RECIPE, 'utf8'));
    expect(manifests.map((m) => m.kind)).toEqual(['PersistentVolumeClaim', 'CronJob']);
    for (const manifest of manifests) expect(problems(manifest), manifest.kind).toEqual([]);
  });

  it('the schemas are real: a misspelt completionMode, a string for completions, an unknown kind are refused', async () => {
    const text = await readFile(RECIPE, 'utf8');
    const indexd = documents(text.replace(/^( +)completionMode: Indexed$/m, '$1completionMode: Indexd'));
    expect(problems(indexd[1] as Manifest).join()).toContain('/spec/jobTemplate/spec/completionMode');
    const words = documents(text.replace(/^( +)completions: 8 /m, '$1completions: eight '));
    expect(problems(words[1] as Manifest).join()).toContain('/spec/jobTemplate/spec/completions');
    expect(problems({ apiVersion: 'batch/v1', kind: 'CronJobs' })).toEqual([
      'no schema for batch/v1 CronJobs',
    ]);
  });

  it('an Indexed Job of SHARDS pods, never two nights at once, running the image with a shell', async () => {
    const { spec } = await cronJob();
    expect(spec.concurrencyPolicy).toBe('Forbid');
    const job = spec.jobTemplate.spec;
    expect(job.completionMode).toBe('Indexed');
    expect(job.parallelism).toBeLessThanOrEqual(job.completions);
    const [container] = job.template.spec.containers;
    const shards = container?.env?.find((variable) => variable.name === 'SHARDS')?.value;
    expect(Number(shards)).toBe(job.completions);
    expect(container?.command).toEqual(['sh', '-c']);
    // `sh` is in the image: the Dockerfile's base is a Debian slim Node image, not a distroless one.
    const dockerfile = await readFile(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:\d+-slim$/m);
    expect(dockerfile).toContain('ENTRYPOINT ["wafctl"]');
  });

  /** Runs the container's script as index `index` against a stub wafctl exiting `code`. */
  async function runShard(index: number, code: number) {
    const { spec } = await cronJob();
    const script = spec.jobTemplate.spec.template.spec.containers[0]?.args?.[0] ?? '';
    const dir = await mkdtemp(join(tmpdir(), 'wafctl-k8s-'));
    await mkdir(join(dir, 'bin'));
    await writeFile(
      join(dir, 'bin', 'wafctl'),
      `#!/bin/sh\necho "$@" > '${join(dir, 'args')}'\nexit ${code}\n`,
    );
    await chmod(join(dir, 'bin', 'wafctl'), 0o755);
    const env = {
      PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
      JOB_COMPLETION_INDEX: String(index),
      SHARDS: '8',
      REPORTS: join(dir, 'reports'),
      JOB_NAME: 'wafctl-fleet-drift-29000000',
    };
    const exit = await promisify(execFile)('sh', ['-c', script], { env }).then(
      () => 0,
      (error: { code: number }) => error.code,
    );
    const args = (await readFile(join(dir, 'args'), 'utf8')).trim();
    return { exit, args, reports: join(dir, 'reports', 'wafctl-fleet-drift-29000000') };
  }

  it('index 0 is shard 1/8 and index 7 shard 8/8, each writing its report into the night’s directory', async () => {
    const first = await runShard(0, 0);
    expect(first.exit).toBe(0);
    expect(first.args).toContain('drift /config/repo/config --env all --shard 1/8 ');
    expect(first.args).toContain(`--format json --report ${first.reports}/drift-1.json`);
    const last = await runShard(7, 0);
    expect(last.args).toContain('--shard 8/8 ');
  });

  it('drift (2) succeeds; --fail-on (3) and errors (1) fail the pod with their code', async () => {
    expect((await runShard(3, 2)).exit).toBe(0);
    expect((await runShard(3, 3)).exit).toBe(3);
    expect((await runShard(3, 1)).exit).toBe(1);
  });
});
