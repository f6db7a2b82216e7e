/**
 * A targeted run's selection (`--target`, `--exclude`, `--kind`, or the library's options of the
 * same names), checked before any request: the CLI's plan, drift and apply and the library's build
 * it here.
 */
import { checkSelection, isPartial, type Selection } from '../../plan/targets.js';
import { resolveKinds } from '../export/kind-names.js';

/** The addresses and kinds a run is narrowed to, as given (kinds in any spelling `--kind` takes). */
export interface SelectionInput {
  target?: readonly string[] | undefined;
  exclude?: readonly string[] | undefined;
  kind?: readonly string[] | undefined;
}

/** The selection `input` makes (checked: a bad address or kind is a usage error), or undefined for a whole run. */
export function selectionOf(input: SelectionInput): Selection | undefined {
  const kinds = (input.kind ?? []).length === 0 ? [] : resolveKinds(input.kind).map((kind) => kind.name);
  const selection = { target: [...(input.target ?? [])], exclude: [...(input.exclude ?? [])], kind: kinds };
  return isPartial(selection) ? checkSelection(selection) : undefined;
}
