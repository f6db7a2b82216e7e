/**
 * `wafctl pull`: what to change in the author's files, as plain data. The decision (decide.ts) is
 * pure; the YAML editor (yaml-edit.ts) applies edits to a file's text, byte for byte elsewhere.
 */

/** A path inside one YAML document: mapping keys and sequence indexes, e.g. `['groups', 2, 'users']`. */
export type NodePath = readonly (string | number)[];

export type YamlEdit =
  /**
   * Replace the value at `path`. When the last element is a key that its mapping does not have, add
   * the pair to that mapping (after its last pair).
   */
  | { op: 'set'; document: number; path: NodePath; value: unknown }
  /** Remove the sequence item or mapping pair at `path`, with the comment lines directly above it. */
  | { op: 'remove'; document: number; path: NodePath }
  /**
   * Append `values` to the sequence at `path`. When the last element of `path` is a key its mapping
   * lacks (e.g. a document without `groups:`), add the key with a block sequence of the values.
   */
  | { op: 'append'; document: number; path: NodePath; values: readonly unknown[] };

/** Why a value at a path cannot be edited in place: it is not written literally there. */
export interface ValueOrigin {
  origin: 'variable' | 'alias' | 'anchor';
  /** 1-based, of the node that makes it so (the `${`, the `*alias`, the `&anchor`). */
  line: number;
  col: number;
}

/** One file a pull changes: its text before and after the edits. */
export interface FileChange {
  file: string;
  before: string;
  after: string;
  /** The file did not exist: `--adopt` creates it. */
  created: boolean;
}
