/** HTTP plumbing of the emulator: reading bounded bodies, media types, and JSON answers. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Bodies above this are refused with 413 (the spec documents no limit; 16 MiB fits 10,000+ rules). */
export const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

export interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function errorAnswer(status: number, message: string, errors?: readonly string[]): HttpAnswer {
  return {
    status,
    body: errors === undefined ? { status: 'error', message } : { status: 'error', message, errors },
  };
}

export function sendJson(res: ServerResponse, answer: HttpAnswer): void {
  sendBytes(
    res,
    answer.status,
    'application/json; charset=utf-8',
    JSON.stringify(answer.body),
    answer.headers,
  );
}

/** Any body, sent whole with its exact `content-length` (a string is sent as UTF-8). */
export function sendBytes(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'content-type': contentType,
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** `type/subtype` in lower case, without parameters such as `; charset=...` or `; boundary=...`. */
export function mediaType(header: string | undefined): string | undefined {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  return type === undefined || type === '' ? undefined : type;
}

export type BodyRead = { kind: 'ok'; text: string } | { kind: 'too-large' } | { kind: 'aborted' };

/**
 * Reads the body up to `limit` bytes. A larger body is still drained (and discarded) before the 413
 * is sent: answering while the client is still uploading makes many clients report a reset instead.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    let tooLarge = Number.isFinite(declared) && declared > limit;
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      if (tooLarge) chunks.length = 0;
      else chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(
        tooLarge ? { kind: 'too-large' } : { kind: 'ok', text: Buffer.concat(chunks).toString('utf8') },
      ),
    );
    req.on('error', () => resolve({ kind: 'aborted' }));
    // After 'end' this is a no-op (a promise settles once); before it, the client went away.
    req.on('close', () => resolve({ kind: 'aborted' }));
  });
}

/** The parsed JSON document, or why it is not one. */
export function parseJsonBody(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  if (text.trim() === '') return { ok: false, error: 'body: required (a JSON document)' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `body: malformed JSON: ${reason}` };
  }
}
