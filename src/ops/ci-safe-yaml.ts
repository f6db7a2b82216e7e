/**
 * YAML that wafctl prints (export, `get --output yaml`), safe in a CI log with its values intact.
 * Strings that could open a GitHub Actions workflow command (core/text.ts) are written
 * double-quoted on one line, with `\n` escapes: a block scalar would give them lines of their own,
 * and the CLI's output guard would change a plain one. Everything else is written as before.
 */
import { type Document, type ToStringOptions, visit } from 'yaml';
import { mayStartWorkflowCommand } from '../core/text.js';

/** Quotes the strings that need it; `true` when some did. */
function quoteWorkflowCommands(doc: Document): boolean {
  let quoted = false;
  visit(doc, {
    Scalar(key, node) {
      // A key opens its line; a value or list item follows `key: ` or `- ` (unless a comment comes first).
      const inline = (key === 'value' || typeof key === 'number') && !node.commentBefore;
      if (typeof node.value !== 'string' || !mayStartWorkflowCommand(node.value, { inline })) return;
      node.type = 'QUOTE_DOUBLE';
      quoted = true;
    },
  });
  return quoted;
}

/**
 * `doc` as text. yaml breaks a double-quoted string of 40 characters or more at its `\n`s, whatever
 * `lineWidth`: that is turned off only when something was quoted, so ordinary output keeps its bytes.
 */
export function ciSafeYaml(doc: Document, options: ToStringOptions): string {
  const quoted = quoteWorkflowCommands(doc);
  return doc.toString(
    quoted ? { ...options, doubleQuotedMinMultiLineLength: Number.POSITIVE_INFINITY } : options,
  );
}
