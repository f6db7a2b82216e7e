/**
 * What the step tells the GitHub runner (pure): annotations in its log (workflow commands), and its
 * outputs, in the form $GITHUB_OUTPUT takes them.
 */

/**
 * A GitHub error annotation. The value it quotes is escaped so that it cannot start a workflow
 * command of its own (a newline in an input would).
 */
export function errorAnnotation(message: string): string {
  return `::error::wafctl action: ${escapeData(message)}`;
}

/** A GitHub warning annotation, escaped as errorAnnotation's. */
export function warningAnnotation(message: string): string {
  return `::warning::wafctl action: ${escapeData(message)}`;
}

function escapeData(message: string): string {
  return message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export interface ActionOutputs {
  exitCode: number;
  hasChanges: boolean;
  /** The markdown file's path when there is one (plan, drift), else empty. */
  markdown: string;
  commentMarker: string;
}

/**
 * The lines appended to $GITHUB_OUTPUT: `name=value`, or GitHub's multi-line form (`name<<DELIMITER`)
 * for a value holding a line break, with a delimiter the value does not contain.
 */
export function formatOutputs(outputs: ActionOutputs, delimiter = 'wafctl_output_eof'): string {
  const pairs: [string, string][] = [
    ['exit-code', String(outputs.exitCode)],
    ['has-changes', String(outputs.hasChanges)],
    ['markdown', outputs.markdown],
    ['comment-marker', outputs.commentMarker],
  ];
  return pairs
    .map(([name, value]) => {
      if (!/[\r\n]/.test(value)) return `${name}=${value}\n`;
      let eof = delimiter;
      while (value.includes(eof)) eof = `${eof}_`;
      return `${name}<<${eof}\n${value}\n${eof}\n`;
    })
    .join('');
}
