/**
 * The project file: `wafctl.yaml` at the configuration root (the single PATH given when it is a
 * directory, else the current directory) may declare `environments:`, each with its URL, the
 * *names* of the variables holding its credentials (never values), the paths it reads (later paths
 * overlay earlier ones, overlay.ts) and its `vars` (`${var.NAME}`).
 *
 * No project file, or one without `environments:`: nothing changes. The same file stays an ordinary
 * configuration file too (it may hold `manage:` and anything else): the loader ignores the
 * `environments` key of the root's project file, and of no other file (read-sources.ts,
 * `SourceFile.project`), so it is read as configuration wherever a load includes it.
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize, resolve } from 'node:path';
import * as z from 'zod';
import { boundedSafeParse } from './bounded-parse.js';
import { containedProjectFile } from './containment.js';
import { VARIABLE_NAME } from './env.js';
import {
  DEFAULTS_KEY,
  type EnvironmentFields,
  placeholdersFilled,
  withDefaults,
} from './environment-defaults.js';
import { problemsFromIssue } from './issues.js';
import { isMapping } from './mapping.js';
import { MAX_FILE_BYTES, type ParsedDocument, parseYamlFile } from './parse-yaml.js';
import { ConfigError, type ConfigProblem } from './problems.js';
import { formatPath } from './yaml-path.js';

export const PROJECT_FILE = 'wafctl.yaml';

/** `--env all` selects every environment, so no environment may be named so. */
export const ALL_ENVIRONMENTS = 'all';

export interface EnvironmentSpec {
  name: string;
  url?: string | undefined;
  url_env?: string | undefined;
  token_env?: string | undefined;
  signin_username_env?: string | undefined;
  signin_password_env?: string | undefined;
  /** Relative to the root, in the order they are read. */
  paths: string[];
  vars: Record<string, string>;
}

export interface Project {
  /** The configuration root, as the user would write it (`.`, `config`). */
  root: string;
  /** The project file, as problems name it (`wafctl.yaml`, `config/wafctl.yaml`). */
  file: string;
  /** In the order the file declares them. */
  environments: EnvironmentSpec[];
}

const variableName = z.string().regex(VARIABLE_NAME, {
  error: 'expected the name of an environment variable: letters, digits and _, not starting with a digit',
});

const ENVIRONMENT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const rootPath = z
  .string()
  .min(1, { error: 'expected a path relative to the configuration root, got an empty string' })
  .refine((path) => !isAbsolute(path), {
    error: 'expected a path relative to the configuration root, got an absolute path',
  })
  .refine((path) => normalize(path) !== '..' && !normalize(path).startsWith(`..${'/'}`), {
    error: 'expected a path inside the configuration root, got one that leaves it (..)',
  });

const pathList = z
  .array(rootPath)
  .min(1, { error: 'expected at least one path' })
  .refine((paths) => new Set(paths.map((path) => normalize(path))).size === paths.length, {
    error: 'a path is listed twice',
  });

const varsRecord = z.record(
  z.string().regex(VARIABLE_NAME, {
    error: 'expected a var name: letters, digits and _, not starting with a digit',
  }),
  z.union([z.string(), z.number(), z.boolean()], {
    error: 'expected a string, number or boolean',
  }),
);

const httpUrl = z.string().regex(/^https?:\/\/\S+$/, { error: 'expected an http:// or https:// URL' });

/** An environment as written: every field optional, as it may inherit them (environment-defaults.ts). */
const declaredEnvironment = z.strictObject({
  url: httpUrl.optional().meta({ description: 'The firewall URL (or url_env).' }),
  url_env: variableName.optional().meta({ description: 'The variable holding the URL (or url).' }),
  token_env: variableName.optional().meta({ description: 'The variable holding the API token.' }),
  signin_username_env: variableName.optional(),
  signin_password_env: variableName.optional(),
  paths: pathList.optional(),
  vars: varsRecord.optional(),
});

/** Where and as whom: one of url and url_env; token_env, or the sign-in pair. */
function connectionIssues(environment: z.output<typeof declaredEnvironment>, context: z.RefinementCtx): void {
  const hasUrl = environment.url !== undefined;
  const hasUrlEnv = environment.url_env !== undefined;
  if (hasUrl === hasUrlEnv) {
    context.addIssue({
      code: 'custom',
      path: hasUrl ? ['url_env'] : [],
      message: hasUrl
        ? 'url and url_env are both set: give exactly one'
        : 'expected exactly one of url or url_env',
    });
  }
  const hasToken = environment.token_env !== undefined;
  const user = environment.signin_username_env !== undefined;
  const password = environment.signin_password_env !== undefined;
  if (hasToken && (user || password)) {
    context.addIssue({
      code: 'custom',
      path: [user ? 'signin_username_env' : 'signin_password_env'],
      message: 'token_env and the sign-in variables are both set: give token_env, or the sign-in pair',
    });
  } else if (!hasToken && user !== password) {
    context.addIssue({
      code: 'custom',
      path: [],
      message: `${user ? 'signin_password_env' : 'signin_username_env'} is missing: the sign-in takes both signin_username_env and signin_password_env`,
    });
  } else if (!hasToken && !user) {
    context.addIssue({
      code: 'custom',
      path: [],
      message: 'expected token_env, or signin_username_env and signin_password_env',
    });
  }
}

/** An environment once its defaults are applied: complete and consistent. */
const environmentSchema = declaredEnvironment.extend({ paths: pathList }).superRefine(connectionIssues);

/** A variable name, `{ENV}` (or `{env}`) standing for a part made of the environment's name. */
const variableTemplate = z.string().refine((name) => VARIABLE_NAME.test(placeholdersFilled(name)), {
  error:
    'expected the name of an environment variable: letters, digits and _, not starting with a digit ({ENV}: the environment name upper-cased, other characters as _)',
});

/** `environment_defaults:`: any field of an environment, its strings templates of the environment's name. */
const defaultsSchema = z
  .strictObject({
    url: httpUrl.optional(),
    url_env: variableTemplate.optional(),
    token_env: variableTemplate.optional(),
    signin_username_env: variableTemplate.optional(),
    signin_password_env: variableTemplate.optional(),
    paths: pathList.optional(),
    vars: varsRecord.optional(),
  })
  .superRefine((defaults, context) => {
    // Both of two alternatives: wrong for every environment that inherits them, said once here.
    if (defaults.url !== undefined && defaults.url_env !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['url_env'],
        message: 'url and url_env are both set: give exactly one',
      });
    }
    const signin = defaults.signin_username_env ?? defaults.signin_password_env;
    if (defaults.token_env !== undefined && signin !== undefined) {
      context.addIssue({
        code: 'custom',
        path: [defaults.signin_username_env === undefined ? 'signin_password_env' : 'signin_username_env'],
        message: 'token_env and the sign-in variables are both set: give token_env, or the sign-in pair',
      });
    }
  });

const environmentsRecord = <T extends z.ZodType>(environment: T) =>
  z
    .record(
      // Names are checked by `nameProblems` (zod says only "Invalid key in record").
      z.string(),
      environment,
    )
    .refine((environments) => Object.keys(environments).length > 0, {
      error: 'expected at least one environment',
    })
    .optional();

/**
 * The project file's schema, as written: `environments:` and `environment_defaults:`; any other key
 * is configuration, checked by the loader.
 */
export const projectSchema = z.looseObject({
  environments: environmentsRecord(declaredEnvironment),
  [DEFAULTS_KEY]: defaultsSchema.optional(),
});

/** The same, each environment complete (its defaults applied): where its problems are placed. */
const resolvedProjectSchema = projectSchema.extend({ environments: environmentsRecord(environmentSchema) });

/** The configuration root of a command given `paths` (see the module comment). */
export async function projectRoot(paths: readonly string[], cwd: string): Promise<string> {
  if (paths.length !== 1) return '.';
  const [only = '.'] = paths;
  try {
    return (await stat(resolve(cwd, only))).isDirectory() ? only : '.';
  } catch {
    return '.';
  }
}

/** Throws a ConfigError when the root or the file leaves its boundary (load.ts, containment.ts). */
async function readText(root: string, file: string, cwd: string): Promise<string | undefined> {
  const absolute = await containedProjectFile(root, file, cwd);
  if (absolute === undefined) return undefined;
  try {
    const info = await stat(absolute);
    // Not a regular file, or larger than a configuration file may be: the loader says why.
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return undefined;
    return await readFile(absolute, 'utf8');
  } catch {
    return undefined;
  }
}

const DECLARES_ENVIRONMENTS = /^environments[ \t]*:/m;

/**
 * The project at `root` (relative to `cwd`): undefined when there is no project file or it declares
 * no environments (today's behaviour). Throws a ConfigError for an invalid `environments:`, each
 * problem at its FILE:LINE:COL; messages name variables, never their values.
 */
export async function readProject(root: string, cwd: string): Promise<Project | undefined> {
  const file = join(root, PROJECT_FILE);
  const text = await readText(root, file, cwd);
  // A file too large or unreadable is said by the loader, which reads it as configuration.
  if (text === undefined || !DECLARES_ENVIRONMENTS.test(text)) return undefined;
  // No variables: `environments:` holds names of variables, and substitution problems elsewhere in
  // the file are the loader's to report.
  const parsed = parseYamlFile(file, text, {});
  const problems: ConfigProblem[] = parsed.problems.filter(
    (problem) => problem.path === '' || problem.path.startsWith('environments'),
  );
  const found = parsed.documents.filter(
    (document) =>
      document.data !== null &&
      typeof document.data === 'object' &&
      Object.hasOwn(document.data, 'environments'),
  );
  if (problems.some((problem) => problem.path === '')) throw new ConfigError(problems);
  if (found.length === 0) return undefined;
  for (const extra of found.slice(1)) {
    const { line, col } = extra.locate(['environments']);
    const first = found[0]?.locate(['environments']);
    problems.push({
      file,
      line,
      col,
      path: 'environments',
      message: `environments is declared twice in the project file (first at ${file}:${first?.line}:${first?.col})`,
    });
  }
  const document = found[0];
  if (document === undefined) return undefined;
  for (const problem of nameProblems(document, file)) problems.push(problem);
  const result = boundedSafeParse(projectSchema, document.data);
  const issues = result.success ? [] : result.issues;
  const context = { file, ...document.tree(), root: projectSchema };
  for (const issue of issues) {
    for (const problem of problemsFromIssue(issue, context)) {
      if (!document.reportedPaths.has(problem.path)) problems.push(problem);
    }
  }
  const checked = result.success ? result.data : wellFormedPart(document.data, issues);
  const resolved = resolvedEnvironments(checked, document, file);
  const said = new Set(problems.map(problemKey));
  for (const problem of resolved.problems) if (!said.has(problemKey(problem))) problems.push(problem);
  if (problems.length > 0 || !result.success) throw new ConfigError(problems);
  const { environments } = resolved;
  if (environments.length === 0) return undefined;
  const unread = unreadConfiguration(parsed.documents, environments, file);
  if (unread.length > 0) throw new ConfigError(unread);
  return { root, file, environments };
}

/**
 * What of an invalid project file can still be resolved, to report every problem at once (those
 * found again are said once, readProject): its environments that are mappings, unless the defaults
 * or `environments:` itself have a problem.
 */
function wellFormedPart(data: unknown, issues: readonly z.core.$ZodIssue[]): z.output<typeof projectSchema> {
  if (issues.some(({ path }) => path.length < 2 || path[0] === DEFAULTS_KEY)) return {};
  const written = data as z.output<typeof projectSchema>;
  const environments = Object.entries(written.environments ?? {}).filter(([, value]) => isMapping(value));
  return { ...written, environments: Object.fromEntries(environments) };
}

/**
 * Each environment with the defaults it inherits (environment-defaults.ts), checked complete: a
 * problem of a field it declares is placed there; of one it inherits, at the default, said once for
 * every environment it concerns (a default wrong for 200 environments is one problem).
 */
function resolvedEnvironments(
  data: z.output<typeof projectSchema>,
  document: ParsedDocument,
  file: string,
): { environments: EnvironmentSpec[]; problems: ConfigProblem[] } {
  const context = { file, ...document.tree(), root: resolvedProjectSchema };
  const own: ConfigProblem[] = [];
  const inherited = new Map<string, { problem: ConfigProblem; names: string[] }>();
  const environments = Object.entries(data.environments ?? {}).flatMap(([name, declared]) => {
    const resolved = withDefaults(data[DEFAULTS_KEY], declared, name);
    const result = boundedSafeParse(environmentSchema, resolved.fields);
    if (result.success) return [specOf(name, result.data)];
    for (const issue of result.issues) {
      const field = issue.path[0] as keyof EnvironmentFields;
      const fromDefaults = resolved.inherited.has(field);
      const path = fromDefaults ? [DEFAULTS_KEY, ...issue.path] : ['environments', name, ...issue.path];
      for (const problem of problemsFromIssue({ ...issue, path }, context)) {
        if (!fromDefaults) {
          if (!document.reportedPaths.has(problem.path)) own.push(problem);
        } else {
          const key = `${problem.path}\0${problem.message}`;
          const entry = inherited.get(key) ?? { problem, names: [] };
          entry.names.push(name);
          inherited.set(key, entry);
        }
      }
    }
    return [];
  });
  const shared = [...inherited.values()].map(({ problem, names }) => ({
    ...problem,
    message: `${problem.message} (for ${namesShown(names)})`,
  }));
  return { environments, problems: [...own, ...shared] };
}

const problemKey = ({ line, col, path, message }: ConfigProblem): string =>
  `${line}:${col}:${path}:${message}`;

/** `environment a`, `environments a, b, c and 197 more`. */
function namesShown(names: readonly string[]): string {
  if (names.length === 1) return `environment ${names[0]}`;
  const more = names.length > 3 ? ` and ${names.length - 3} more` : '';
  return `environments ${names.slice(0, 3).join(', ')}${more}`;
}

const specOf = (name: string, fields: z.output<typeof environmentSchema>): EnvironmentSpec => ({
  name,
  ...fields,
  vars: Object.fromEntries(Object.entries(fields.vars ?? {}).map(([key, value]) => [key, String(value)])),
});

/** The environment names of `environments:` that cannot name one, each at its key. */
function nameProblems(document: ParsedDocument, file: string): ConfigProblem[] {
  const declared = (document.data as Record<string, unknown>).environments;
  if (!isMapping(declared)) return [];
  return Object.keys(declared).flatMap((name) => {
    const message = !ENVIRONMENT_NAME.test(name)
      ? 'expected an environment name: letters, digits, _, . and -, starting with a letter or digit'
      : name === ALL_ENVIRONMENTS
        ? `"${ALL_ENVIRONMENTS}" cannot name an environment: --env ${ALL_ENVIRONMENTS} selects every environment`
        : undefined;
    if (message === undefined) return [];
    const { line, col } = document.locate(['environments', name]);
    return [{ file, line, col, path: formatPath(['environments', name]), message }];
  });
}

/** Whether an environment path reads the project file: the root itself (`.`), or the file by name. */
const readsProjectFile = (path: string): boolean => {
  const normalized = normalize(path);
  return normalized === '.' || normalized === PROJECT_FILE;
};

/**
 * Configuration in the project file (`manage:`, `settings:`, objects) that no environment reads: an
 * environment reads only its `paths`, so a `manage:` scoping groups here would be silently ignored,
 * and every environment would plan without it (its prunes unscoped). Refused at each key.
 */
function unreadConfiguration(
  documents: readonly ParsedDocument[],
  environments: readonly EnvironmentSpec[],
  file: string,
): ConfigProblem[] {
  if (environments.some((environment) => environment.paths.some(readsProjectFile))) return [];
  const readers = environments.map((environment) => `${environment.name} (${environment.paths.join(', ')})`);
  return documents.flatMap((document) => {
    const data = document.data;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return [];
    return Object.keys(data)
      .filter((key) => key !== 'environments' && key !== DEFAULTS_KEY)
      .map((key) => {
        const { line, col } = document.locate([key]);
        return {
          file,
          line,
          col,
          path: key,
          message: `${key} here is read by no environment: each reads only its paths (${readers.join('; ')}); move it into a file of those paths, or list "." in their paths`,
        };
      });
  });
}

/** Where an environment's path is, as the loader shows it (relative to the current directory). */
export function environmentPath(project: Project, path: string): string {
  return join(project.root, path);
}
