/**
 * The top-level `variables:` lists: the names a file declares, read before any file is substituted,
 * and declarations of an environment's credential variables, refused.
 */
import { isScalar, isSeq } from 'yaml';
import { type CredentialVariables, cannotDeclare, credentialReason, VARIABLE_NAME } from './env.js';
import { checkKeys } from './key-check.js';
import { isMapping } from './mapping.js';
import { type ParsedDocument, parseDocuments, unreadableProblem } from './parse-yaml.js';
import type { ConfigProblem } from './problems.js';
import { formatPath } from './yaml-path.js';

/**
 * The names a file declares in top-level `variables:` lists (any of its documents), read before
 * substitution so that one file may use a name another declares. Only names: the schema checks
 * the lists themselves. A file that cannot be read declares nothing (its problems come later).
 */
export function declaredVariablesIn(text: string): string[] {
  if (!text.includes('variables') || unreadableProblem('', text) !== undefined) return [];
  const names: string[] = [];
  for (const doc of parseDocuments(text)) {
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

/**
 * `variables:` entries that name an environment's credential variable (`token_env`, ...): data of the
 * project, so checked here; the names every configuration refuses (`WAF_*`, credential-like words) are
 * the schema's.
 */
export function credentialDeclarations(
  document: ParsedDocument,
  credentials: CredentialVariables | undefined,
): ConfigProblem[] {
  if (credentials === undefined || credentials.size === 0 || !isMapping(document.data)) return [];
  const list = document.data.variables;
  if (!Array.isArray(list)) return [];
  return list.flatMap((name: unknown, index) => {
    if (typeof name !== 'string' || credentialReason(name) !== undefined) return [];
    const reason = credentialReason(name, credentials);
    if (reason === undefined) return [];
    const { line, col } = document.locate(['variables', index]);
    const path = formatPath(['variables', index]);
    return [{ file: document.file, line, col, path, message: cannotDeclare(name, reason) }];
  });
}
