/**
 * `environment_defaults:` in wafctl.yaml: the fields every environment inherits unless it sets them,
 * so that a fleet of similar environments is one line each (`prod-eu-1: {}`), as Terraform's
 * `defaults` / octoDNS's shared provider settings would be. In an inherited string, `{env}` is the
 * environment's name and `{ENV}` its name upper-cased with every character other than a letter or
 * digit as `_` (so it fits a variable name: `token_env: WAF_TOKEN_{ENV}` gives `WAF_TOKEN_PROD_EU_1`
 * for `prod-eu-1`). An environment's own values are taken as written.
 *
 * Alternatives are inherited together: an environment that sets `url` does not inherit `url_env`,
 * one that sets `token_env` inherits neither sign-in variable (and the reverse); `paths` is replaced
 * whole; `vars` are merged name by name, the environment's winning. Defaults are applied when the
 * project is read (project.ts), so everything after (connections, the trusted ref's comparison of
 * them, credential redaction) sees each environment's resolved fields. Pure.
 */

/** The top-level key of the project file (beside `environments`). */
export const DEFAULTS_KEY = 'environment_defaults';

/** The fields an environment declares, or inherits. */
export interface EnvironmentFields {
  url?: string | undefined;
  url_env?: string | undefined;
  token_env?: string | undefined;
  signin_username_env?: string | undefined;
  signin_password_env?: string | undefined;
  paths?: string[] | undefined;
  vars?: Record<string, string | number | boolean> | undefined;
}

type Field = keyof EnvironmentFields;

/** Fields inherited together: setting one of a group drops the defaults' whole group. */
const GROUPS: readonly (readonly Field[])[] = [
  ['url', 'url_env'],
  ['token_env', 'signin_username_env', 'signin_password_env'],
  ['paths'],
];

/** `template` for environment `name`: `{env}` its name, `{ENV}` its name as a variable name's part. */
export function forEnvironment(template: string, name: string): string {
  const upper = name.toUpperCase().replace(/[^A-Z0-9]/g, '_');
  return template.replaceAll('{env}', name).replaceAll('{ENV}', upper);
}

/** `template` with any placeholder replaced, to check its shape before an environment is known. */
export const placeholdersFilled = (template: string): string =>
  template.replaceAll('{env}', 'x').replaceAll('{ENV}', 'X');

/** An environment's fields, with the defaults it inherits; `inherited`: the fields that came from them. */
export interface ResolvedFields {
  fields: EnvironmentFields;
  inherited: ReadonlySet<Field>;
}

/** The fields of environment `name` (`own`), completed by `defaults` (see the module comment). */
export function withDefaults(
  defaults: EnvironmentFields | undefined,
  own: EnvironmentFields,
  name: string,
): ResolvedFields {
  if (defaults === undefined) return { fields: own, inherited: new Set() };
  const fields: EnvironmentFields = { ...own };
  const inherited = new Set<Field>();
  for (const group of GROUPS) {
    if (group.some((field) => own[field] !== undefined)) continue;
    for (const field of group) {
      const value = defaults[field];
      if (value === undefined) continue;
      Object.assign(fields, { [field]: resolved(value, name) });
      inherited.add(field);
    }
  }
  if (defaults.vars !== undefined) {
    fields.vars = { ...resolved(defaults.vars, name), ...own.vars };
    if (own.vars === undefined) inherited.add('vars');
  }
  return { fields, inherited };
}

/** A default value for environment `name`: its strings (in lists and mappings too) with placeholders replaced. */
function resolved<T>(value: T, name: string): T {
  if (typeof value === 'string') return forEnvironment(value, name) as T;
  if (Array.isArray(value)) return value.map((item) => resolved(item, name)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolved(item, name)])) as T;
  }
  return value;
}
