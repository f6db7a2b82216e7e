/**
 * The text of runs over environments of wafctl.yaml: the heading of one environment's plan, drift
 * report or apply, and the sections of several environments' outputs, one after the other.
 */

/** The first line of a text plan, drift report or apply made for an environment; none without one. */
export function environmentHeading(environment: string | undefined): string | undefined {
  return environment === undefined ? undefined : `Environment: ${environment}`;
}

/**
 * Text output of several environments: each one's under `== Environment: NAME ==`, in the order
 * given; `missing` starts the line of one that failed (its error is printed at the end).
 */
export function textSections(
  names: readonly string[],
  outputs: readonly (string | undefined)[],
  missing: string,
): string {
  return names
    .map((name, i) => {
      const shown = outputs[i] ?? `${missing}: this environment failed (the error is shown at the end).\n`;
      return `== Environment: ${name} ==\n${shown}`;
    })
    .join('\n');
}
