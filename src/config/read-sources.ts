/**
 * How a load reads its files: each file once, by one reader. The fast reader where it takes the file
 * (`fast-read.ts`), yaml otherwise, substituting with the load's variables; the project file without
 * its `environments`; only the policy when the load reads policy only. An environment's paths are
 * read first and overlaid (overlay.ts).
 */
import { printable } from '../core/text.js';
import { KINDS, type Kind } from '../kinds/index.js';
import { declaredVariablesIn } from './declared-variables.js';
import {
  type AllowList,
  allowedNames,
  type CredentialVariables,
  type Environment,
  type VariableRules,
} from './env.js';
import { DEFAULTS_KEY } from './environment-defaults.js';
import { readFast } from './fast-read.js';
import { isMapping, type Mapping } from './mapping.js';
import { type Layer, overlayLayers } from './overlay.js';
import { type ParsedDocument, type ParsedFile, parsingYamlFile } from './parse-yaml.js';
import type { ConfigProblem } from './problems.js';
import { TESTS } from './rule-test-schema.js';
import type { Steps } from './steps.js';
import { isAtOrUnder } from './yaml-path.js';

export interface SourceFile {
  /** As the user gave it; problems name it this way. */
  file: string;
  text: string;
  /**
   * The root's project file (wafctl.yaml, project.ts): its `environments` key is the project's, not
   * configuration, so it is left out here and the rest of the file is read as any other file.
   */
  project?: boolean;
}

/** One path of an environment, in order: its files. */
export interface SourceLayer {
  path: string;
  sources: readonly SourceFile[];
}

/** What decides how a load reads its files. */
export interface ReadOptions {
  env: Environment;
  /** Variables that are credentials (every environment's `token_env`, ...): never read or declared. */
  credentials?: CredentialVariables | undefined;
  /** Which names `${NAME}` reads besides `WAFCTL_VAR_*` ones (`AllowList`); none without a trusted ref. */
  allowList?: AllowList | undefined;
  /**
   * Read only the policy of each file (`variables`, `manage`, `settings.firewall_actions`,
   * `settings.safety`, the expectation sections and the rule tests `tests`), as the trusted ref's
   * policy and the policy a saved plan is judged by are read: objects are dropped after reading
   * (unvalidated, and their substitution problems with them), so they can neither fail nor leak.
   */
  policyOnly?: boolean | undefined;
}

/** The variables of a load: what `${NAME}` read, and what the files declare. */
export interface LoadVariables {
  rules: VariableRules;
  declared: ReadonlySet<string>;
}

/** How a file is read, in steps (steps.ts): yaml's reading of a large file pauses inside it. */
export type ReadFile = (source: SourceFile) => Steps<ParsedFile>;

/** How a load reads a file, and the variables it substitutes with. */
export interface SourceReader {
  read: ReadFile;
  variables: LoadVariables;
}

/** The top-level keys of the project file that are no configuration (see `SourceFile.project`). */
const PROJECT_KEYS: readonly string[] = ['environments', DEFAULTS_KEY];

/** A project file's documents without their `environments` and `environment_defaults` keys. */
function withoutProjectKey(parsed: ParsedFile): ParsedFile {
  const documents = parsed.documents.map((document) => {
    const data = document.data;
    if (!isMapping(data) || !PROJECT_KEYS.some((key) => Object.hasOwn(data, key))) return document;
    const rest = Object.fromEntries(Object.entries(data).filter(([key]) => !PROJECT_KEYS.includes(key)));
    return { ...document, data: rest };
  });
  return { ...parsed, documents };
}

/**
 * The top-level keys a policy-only load reads whole; the expectation sections (`admins:`) too: what
 * read-only objects are expected to be decides what drift is caught; and the rule tests, which decide
 * whether a plan passes `--fail-on fails_tests` (trust.ts `gateTests`).
 */
const POLICY_KEYS = [
  'variables',
  'manage',
  TESTS,
  ...KINDS.flatMap((kind) => (kind.expectation === undefined ? [] : [kind.expectation.section])),
];

/** The fields of `settings` a policy-only load reads. */
const POLICY_SETTINGS = ['firewall_actions', 'safety'];

/** What of a file a policy-only load reads, as problems' paths (`ReadOptions.policyOnly`). */
const POLICY_PATHS = [...POLICY_KEYS, ...POLICY_SETTINGS.map((field) => `settings.${field}`)];

/** The policy of a document's data: `POLICY_KEYS` and, of a `settings` mapping, `POLICY_SETTINGS`. */
function policyOf(data: Mapping): Mapping {
  const policy: Mapping = {};
  for (const key of POLICY_KEYS) {
    if (data[key] !== undefined) policy[key] = data[key];
  }
  const settings = data.settings;
  if (isMapping(settings)) {
    const picked: Mapping = {};
    for (const field of POLICY_SETTINGS) {
      if (settings[field] !== undefined) picked[field] = settings[field];
    }
    policy.settings = picked;
  } else if (settings !== undefined) policy.settings = settings;
  return policy;
}

/** A file as a policy-only load reads it: its documents' policy, and the problems found in it. */
function policyView(parsed: ParsedFile): ParsedFile {
  const documents = parsed.documents.map(
    (document): ParsedDocument =>
      isMapping(document.data) ? { ...document, data: policyOf(document.data) } : document,
  );
  const problems = parsed.problems.filter(
    (problem) => problem.path === '' || POLICY_PATHS.some((at) => isAtOrUnder(problem.path, at)),
  );
  return { ...parsed, documents, problems };
}

/**
 * The names `variables:` declares anywhere in the configuration: substitution in one file may use a
 * name another declares, so all are read first. Only when some file has a reference at all (the
 * fast reader never substitutes), and only in files that mention `variables`. In steps (steps.ts):
 * a file at a time.
 */
function* declaringVariables(
  sources: readonly SourceFile[],
  /** Read the declarations even when no file substitutes (a trusted ref's allow-list is used elsewhere). */
  always: boolean,
): Steps<ReadonlySet<string>> {
  const names = new Set<string>();
  if (!always && !sources.some((source) => source.text.includes('${'))) return names;
  for (const source of sources) {
    yield `reading the variables of ${printable(source.file)}`;
    for (const name of yield* declaredVariablesIn(source.text)) names.add(name);
  }
  return names;
}

/**
 * The reader of a load of `sources` (see the module comment), once the names the files declare in
 * `variables:` are read (`declaringVariables`).
 */
export function* readerFor(sources: readonly SourceFile[], options: ReadOptions): Steps<SourceReader> {
  const always = options.policyOnly === true || options.allowList !== undefined;
  const declared = yield* declaringVariables(sources, always);
  const rules: VariableRules = {
    declared: allowedNames(options.allowList, declared),
    credentials: options.credentials,
  };
  const read = function* (source: SourceFile): Steps<ParsedFile> {
    const documents = readFast(source.file, source.text);
    const parsed =
      documents !== undefined
        ? { documents, problems: [] }
        : yield* parsingYamlFile(source.file, source.text, options.env, rules);
    const configuration = source.project === true ? withoutProjectKey(parsed) : parsed;
    return options.policyOnly === true ? policyView(configuration) : configuration;
  };
  return { read, variables: { rules, declared } };
}

/**
 * An environment's files read with `read`, path by path, then overlaid (overlay.ts): every file is
 * read before any is validated, since an overlay's object is validated merged with the earlier
 * path's. Returns the reader of the overlaid files, and the problems of the overlays themselves.
 */
export function* readingLayers(
  layers: readonly SourceLayer[],
  read: ReadFile,
  kinds: readonly Kind[],
): Steps<{ read: ReadFile; problems: ConfigProblem[] }> {
  const layered: Layer<ParsedFile & { source: SourceFile }>[] = [];
  for (const layer of layers) {
    const files: (ParsedFile & { source: SourceFile })[] = [];
    for (const source of layer.sources) {
      yield `reading ${printable(source.file)}`;
      files.push({ ...(yield* read(source)), source });
    }
    layered.push({ path: layer.path, files });
  }
  const overlaid = overlayLayers(layered, kinds);
  const bySource = new Map(
    overlaid.layers.flatMap((layer) => layer.files.map((file) => [file.source, file])),
  );
  const overlaidRead = function* (source: SourceFile): Steps<ParsedFile> {
    return bySource.get(source) ?? (yield* read(source));
  };
  return { read: overlaidRead, problems: overlaid.problems };
}
