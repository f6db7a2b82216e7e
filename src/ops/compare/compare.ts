/**
 * `wafctl compare A B` (issue 31): what differs between two environments. Each difference is the
 * change from A to B, classified as if it were a plan applied to A: A's objects are the planner's
 * remote side and B's its desired side, per family, by natural key, prune on (an object only in A is
 * a delete). A side is an environment's configuration (`desiredSide`) or its live firewall read as
 * export reads it (`readLiveSide`); src/plan/render/compare.ts words the result.
 */
import type { ApiClient } from '../../api/index.js';
import { type DeclaredObject, declaredObjects } from '../../config/schema.js';
import type { LoadedConfig } from '../../config/validate-sources.js';
import type { Attributes, Plan } from '../../core/model.js';
import { KINDS, type Kind } from '../../kinds/index.js';
import { type PlanOptions, planChanges } from '../../plan/planner.js';
import { type LiveExport, readLiveExport } from '../export/export.js';
import type { LeftOut } from '../export/select.js';
import { planInputOf } from '../refresh.js';

/** One side of a comparison: its objects, and its expectations of read-only objects. */
export interface ComparedSide {
  /**
   * The objects of each family, as the configuration would declare them; undefined for a family a
   * live side skipped (the server lacks or hides it: kinds/read-families.ts).
   */
  objects: (kind: Kind) => readonly DeclaredObject[] | undefined;
  /** The side's expectation of a family's read-only object (`admins:`), in file form; undefined: none. */
  expected: (kind: Kind) => Record<string, unknown> | undefined;
}

/** A firewall's side of a comparison, and the objects left out of it. */
export interface LiveSide {
  side: ComparedSide;
  leftOut: readonly LeftOut[];
}

/** A configuration's side: its declared objects and its expectations, as written. */
export function desiredSide(config: LoadedConfig): ComparedSide {
  return {
    objects: (kind) => declaredObjects(config.state, kind),
    expected: (kind) =>
      kind.expectation === undefined ? undefined : config.state.expected[kind.expectation.section],
  };
}

/**
 * A firewall's side, read as export reads it (members by username, read-only built-ins left out,
 * ids and timestamps not compared), in every family; and the objects export would leave out (no
 * key, a key shared by two objects, values the configuration refuses), left out of the comparison too.
 */
export async function readLiveSide(
  api: ApiClient,
  options: { concurrency: number; warn: (line: string) => void },
): Promise<LiveSide> {
  const live = await readLiveExport(api, KINDS, options);
  return { side: liveSide(live), leftOut: live.leftOut };
}

/**
 * A firewall's exportable objects as the configuration would declare them: each object export writes
 * (defaults omitted, members by username) read back through its family's schema, so both sides of a
 * live comparison go through `kind.attributes` exactly as declared objects do.
 */
function liveSide(live: LiveExport): ComparedSide {
  const sectionOf = (kind: Kind) => live.sections.find((candidate) => candidate.section === kind.section);
  return {
    objects: (kind) =>
      sectionOf(kind)?.objects.map((object) => {
        const parsed = kind.schema.parse(object) as Record<string, unknown>;
        return { protect: false, ignore_changes: [], ...parsed } as DeclaredObject;
      }),
    // The read-only object as export writes its expectation (`admins: {users: [...]}`).
    expected: (kind) => sectionOf(kind)?.expectation?.object,
  };
}

/**
 * The plan that would turn A's objects into B's: A's as the remote side (id: their key), B's as the
 * desired side, every family either has, scope "everything" and prune on; no field is immutable (a
 * difference is a difference, not a replacement). Both sides are compared as written: `protect` and
 * `ignore_changes` hide nothing, and members are not resolved through a user directory (desired:
 * there is no firewall; live: both sides are already by username). A family is compared only when
 * both sides read it, and a singleton (settings) only when both have it. Safety warnings (a plan's
 * delete limit) do not apply to a comparison.
 */
export function comparePlan(a: ComparedSide, b: ComparedSide, options: PlanOptions): Plan {
  const inputs = KINDS.flatMap((kind) => {
    const before = a.objects(kind);
    const after = b.objects(kind);
    // A family one side could not read is not compared: its objects on the other would all differ.
    if (before === undefined || after === undefined) return [];
    const expected = readOnlySide(kind, a);
    if (before.length === 0 && after.length === 0 && expected.length === 0) return [];
    if (kind.singleton && (before.length === 0 || after.length === 0)) return [];
    const remote = before.map((object) => {
      const attributes = kind.attributes(object);
      const key = kind.keyOf(attributes);
      return { key, id: key, attributes };
    });
    const desired = after.map((object) => {
      const attributes = kind.attributes(object);
      return { key: kind.keyOf(attributes), attributes, protect: false, ignoreChanges: [] };
    });
    const objects = {
      scope: { prune: !kind.singleton, match: {} },
      remote: [...remote, ...readOnlySide(kind, b)],
      desired,
      expected: expected.map(({ key, attributes }) => ({ key, attributes })),
    };
    return [planInputOf(kind, objects, 'comparison')];
  });
  return { ...planChanges(inputs, options), warnings: [] };
}

/**
 * A side's read-only object as the planner compares it (kinds/kind.ts `expectation`): B's as the
 * live read-only record, A's as what is expected, so that a difference reads A -> B.
 */
function readOnlySide(
  kind: Kind,
  side: ComparedSide,
): { key: string; id: string; attributes: Attributes; readOnly: string }[] {
  const expectation = kind.expectation;
  const object = side.expected(kind);
  if (expectation === undefined || object === undefined) return [];
  const attributes = expectation.attributes(object);
  return [{ key: expectation.key, id: expectation.key, attributes, readOnly: 'built in' }];
}
