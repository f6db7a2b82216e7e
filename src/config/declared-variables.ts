/**
 * The top-level `variables:` lists: the names a file declares, read before any file is substituted,
 * and the declarations a load refuses.
 */
import { isScalar, isSeq } from 'yaml';
import {
  type AllowList,
  type CredentialVariables,
  cannotDeclare,
  credentialReason,
  policyPinned,
  undeclarable,
  VARIABLE_NAME,
} from './env.js';
import { checkKeys } from './key-check.js';
import { isMapping } from './mapping.js';
import { notTextProblem, type ParsedDocument, readingDocuments } from './parse-yaml.js';
import type { ConfigProblem } from './problems.js';
import type { Steps } from './steps.js';
import { formatPath } from './yaml-path.js';

/**
 * The names a file declares in top-level `variables:` lists (any of its documents), read before
 * substitution so that one file may use a name another declares. Only names: the schema checks
 * the lists themselves. A file that cannot be read declares nothing (its problems come later). In
 * steps (steps.ts): yaml's reading of a large file pauses inside it.
 */
export function* declaredVariablesIn(text: string): Steps<string[]> {
  if (!text.includes('variables') || notTextProblem('', text) !== undefined) return [];
  const read = yield* readingDocuments(text);
  if (!Array.isArray(read)) return [];
  const names: string[] = [];
  for (const doc of read) {
    const check = doc.errors.length === 0 ? checkKeys(doc) : undefined;
    const readable =
      check !== undefined && check.duplicates.length + check.inKeys.length + check.tooLarge.length === 0;
    const list = readable ? doc.get('variables') : undefined;
    if (!isSeq(list)) continue;
    for (const item of list.items) {
      if (isScalar(item) && typeof item.value === 'string' && VARIABLE_NAME.test(item.value))
        names.push(item.value);
    }
  }
  return names;
}

/** What decides which declarations a load refuses. */
interface DeclarationRules {
  allowList?: AllowList | undefined;
  credentials?: CredentialVariables | undefined;
}

/**
 * The problems of a document's `variables:` list, by where the load's allow-list comes from
 * (env.ts `AllowList`): without a trusted ref, every name (a pull request writes the list:
 * `undeclarable`); in the trusted ref's own files, the names of an environment's credential
 * variables (`token_env`, ...: data of the project, so checked here; `WAF_*` is the schema's); in a
 * work tree under a trusted ref, none (the list is not used, only reported as a change of trust).
 */
export function declarationProblems(document: ParsedDocument, options: DeclarationRules): ConfigProblem[] {
  if (policyPinned(options) || !isMapping(document.data)) return [];
  const list = document.data.variables;
  if (!Array.isArray(list)) return [];
  return list.flatMap((name: unknown, index) => {
    // What the schema refuses (not a name, `WAF_*`) is said once, by the schema.
    if (typeof name !== 'string' || !VARIABLE_NAME.test(name) || credentialReason(name) !== undefined)
      return [];
    const message = declarationProblem(name, options);
    if (message === undefined) return [];
    const { line, col } = document.locate(['variables', index]);
    return [{ file: document.file, line, col, path: formatPath(['variables', index]), message }];
  });
}

/** A credential is said as one first: no trusted ref could declare it either. */
function declarationProblem(name: string, options: DeclarationRules): string | undefined {
  const reason = credentialReason(name, options.credentials);
  if (reason !== undefined) return cannotDeclare(name, reason);
  return options.allowList === undefined ? undeclarable(name) : undefined;
}
