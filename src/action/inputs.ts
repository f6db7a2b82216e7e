/**
 * The GitHub Action's inputs, as GitHub passes them to a JavaScript action: one variable each,
 * `INPUT_` and the input's name upper-cased, dashes kept (`fail-on` is `INPUT_FAIL-ON`). Pure: what
 * they make wafctl run is invocation.ts's. A value is only ever an argument of wafctl, never shell:
 * a path or URL can hold shell syntax.
 */

/** The action's inputs (action.yml), trimmed as GitHub's toolkit trims them. */
export interface ActionInputs {
  command: string;
  paths: string;
  url: string;
  failOn: string;
  planFile: string;
  environment: string;
  version: string;
  workingDirectory: string;
  comment: string;
  commentAuthor: string;
  githubToken: string;
  trustedRef: string;
  wait: string;
  waitTimeout: string;
}

/** The name of each input in action.yml. */
const INPUT_NAMES: Record<keyof ActionInputs, string> = {
  command: 'command',
  paths: 'paths',
  url: 'url',
  failOn: 'fail-on',
  planFile: 'plan-file',
  environment: 'environment',
  version: 'version',
  workingDirectory: 'working-directory',
  comment: 'comment',
  commentAuthor: 'comment-author',
  githubToken: 'github-token',
  trustedRef: 'trusted-ref',
  wait: 'wait',
  waitTimeout: 'wait-timeout',
};

/** The variable GitHub sets for an input: `fail-on` -> `INPUT_FAIL-ON` (spaces become `_`). */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

/** Reads every input from `env`; an input that is not set is empty (the defaults come after). */
export function readInputs(env: Readonly<Record<string, string | undefined>>): ActionInputs {
  const inputs = {} as ActionInputs;
  for (const [key, name] of Object.entries(INPUT_NAMES) as [keyof ActionInputs, string][]) {
    inputs[key] = (env[inputVariable(name)] ?? '').trim();
  }
  return inputs;
}
