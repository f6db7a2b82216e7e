/**
 * The sticky pull-request comment (input `comment: true`): ONE comment, found by the marker its body
 * starts with and its author (the token's login, `comment-author`), updated in place, or created. Node's fetch against the GitHub REST API; the token
 * goes in the Authorization header only, and only to the API's own origin, never into a message.
 */

export interface StickyComment {
  /** GITHUB_API_URL, e.g. https://api.github.com (GitHub Enterprise: https://HOST/api/v3). */
  apiUrl: string;
  /** GITHUB_REPOSITORY: owner/name. */
  repository: string;
  issue: number;
  token: string;
  marker: string;
  /**
   * The login the token comments as: only a comment of this author that starts with the marker is
   * updated. Anyone may post a comment starting with the marker; it is never edited.
   */
  author: string;
  body: string;
  fetch?: typeof globalThis.fetch;
}

export interface CommentResult {
  action: 'created' | 'updated';
  id: number;
  url: string;
}

/** A failed call to the GitHub API: its method, path, status and GitHub's message, no token. */
export class GitHubApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number | undefined,
    detail: string,
  ) {
    super(`GitHub API ${method} ${path}: ${status === undefined ? '' : `${status} `}${detail}`);
    this.name = 'GitHubApiError';
  }
}

/** More than this many pages of comments (100 each) is not a pull request to search by hand. */
const MAX_PAGES = 100;

interface Comment {
  id: number;
  body?: string | null;
  html_url?: string;
  user?: { login?: string } | null;
}

/** Updates the sticky comment of the pull request (its author's, starting with the marker), or creates it. */
export async function upsertComment(options: StickyComment): Promise<CommentResult> {
  const api = new URL(options.apiUrl.endsWith('/') ? options.apiUrl : `${options.apiUrl}/`);
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(options.repository)) {
    throw new Error(`GITHUB_REPOSITORY must be owner/name, got '${options.repository}'`);
  }
  const fetcher = options.fetch ?? globalThis.fetch;
  const call = async (method: string, url: URL, body?: unknown): Promise<Response> => {
    const path = `${url.pathname}${url.search}`;
    // The token is for the API only: a link elsewhere (a forged `Link` header) is not followed.
    if (url.origin !== api.origin) {
      throw new GitHubApiError(method, path, undefined, `refusing to send the token to ${url.origin}`);
    }
    let response: Response;
    try {
      response = await fetcher(url, {
        method,
        headers: {
          Accept: 'application/vnd.github+json',
          Authorization: `Bearer ${options.token}`,
          'User-Agent': 'wafctl-action',
          'X-GitHub-Api-Version': '2022-11-28',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const cause = error instanceof Error ? (error.cause ?? error) : error;
      const detail = cause instanceof Error ? cause.message : String(cause);
      throw new GitHubApiError(method, path, undefined, `request failed: ${detail}`);
    }
    if (!response.ok) {
      throw new GitHubApiError(method, path, response.status, await messageOf(response));
    }
    return response;
  };

  const repo = `repos/${options.repository}`;
  let next: URL | undefined = new URL(`${repo}/issues/${options.issue}/comments?per_page=100`, api);
  let mine: Comment | undefined;
  for (let page = 0; next !== undefined && mine === undefined; page++) {
    if (page === MAX_PAGES) break;
    const response: Response = await call('GET', next);
    const comments = (await response.json()) as Comment[];
    mine = comments.find(
      (comment) =>
        comment.user?.login === options.author && comment.body?.startsWith(options.marker) === true,
    );
    const link = nextLink(response.headers.get('link'));
    next = link === undefined ? undefined : new URL(link, api);
  }
  if (mine !== undefined) {
    const response = await call('PATCH', new URL(`${repo}/issues/comments/${mine.id}`, api), {
      body: options.body,
    });
    const updated = (await response.json()) as Comment;
    return { action: 'updated', id: updated.id ?? mine.id, url: updated.html_url ?? mine.html_url ?? '' };
  }
  const response = await call('POST', new URL(`${repo}/issues/${options.issue}/comments`, api), {
    body: options.body,
  });
  const created = (await response.json()) as Comment;
  return { action: 'created', id: created.id, url: created.html_url ?? '' };
}

/** The `rel="next"` URL of a `Link` header (GitHub's pagination), if any. */
export function nextLink(header: string | null): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]*)>\s*;(.*)$/.exec(part.trim());
    if (match && /(^|;)\s*rel="?next"?\s*(;|$)/.test(match[2] ?? '')) return match[1];
  }
  return undefined;
}

/** GitHub's error message (`{"message": ...}`), else the start of the body, else the status text. */
async function messageOf(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  let message = '';
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') message = parsed.message;
  } catch {
    message = text.slice(0, 200).trim();
  }
  if (message === '') message = response.statusText || 'no message';
  if (response.status === 403) {
    message += ' (the job needs `permissions: pull-requests: write`, and github-token a token that has it)';
  } else if (response.status === 404) {
    message += ' (no such repository or pull request, or the token cannot see it)';
  }
  return message;
}

/** The pull request a comment goes to, from the event that started the workflow (GITHUB_EVENT_PATH). */
export function pullRequestNumber(event: unknown): number | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const { pull_request: pr, issue } = event as {
    pull_request?: { number?: unknown };
    issue?: { number?: unknown; pull_request?: unknown };
  };
  if (typeof pr?.number === 'number') return pr.number;
  // issue_comment on a pull request: the issue is the pull request.
  if (issue?.pull_request !== undefined && typeof issue.number === 'number') return issue.number;
  return undefined;
}
