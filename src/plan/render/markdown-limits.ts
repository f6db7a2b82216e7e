/**
 * The markdown budget's bounds, in a module of their own: `--max-chars` is defined (and checked) when
 * the CLI starts, without loading the renderer.
 */

/** GitHub's limit on a comment's length; `--max-chars` lowers it. */
export const MARKDOWN_MAX_CHARS = 65_536;
/** The least `--max-chars` accepts: the title, summary table and the left-out lines always fit. */
export const MARKDOWN_MIN_CHARS = 1_000;
