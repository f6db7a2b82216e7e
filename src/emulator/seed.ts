/**
 * Seeds: the user directory (with the tokens and passwords that let users call the API, or sign in
 * through `POST /api/v1/signin`) and the read-only rules. Every token and password read here is
 * registered as a secret at once, so no later message can print it; neither is ever stored (the
 * store keeps only id and username).
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { WafctlError } from '../core/errors.js';
import { registerSecret } from '../core/secrets.js';
import { ruleSchema } from './records.js';
import { issueLines } from './validation.js';

const seedUserSchema = z.strictObject({
  id: z.string().min(1),
  username: z.string().min(1),
  token: z.string().min(1).optional(),
  /** Enables sign-in for this user (a fresh token each time). */
  password: z.string().min(1).optional(),
});

const seedSchema = z
  .strictObject({
    users: z.array(seedUserSchema).optional(),
    rules: z.array(ruleSchema).optional(),
  })
  .superRefine((seed, ctx) => {
    reportDuplicates(
      ctx,
      'users',
      'id',
      seed.users?.map((u) => u.id),
    );
    reportDuplicates(
      ctx,
      'users',
      'token',
      seed.users?.map((u) => u.token),
    );
    // Sign-in finds the user by name: two users with a password may not share one.
    reportDuplicates(
      ctx,
      'users',
      'username',
      seed.users?.map((u) => (u.password === undefined ? undefined : u.username)),
    );
    reportDuplicates(
      ctx,
      'rules',
      'id',
      seed.rules?.map((r) => r.id),
    );
  });

/** What a caller may pass: rules may leave out the descriptive fields (see `ruleSchema` defaults). */
export type EmulatorSeed = z.input<typeof seedSchema>;
export type ParsedSeed = z.output<typeof seedSchema>;
export type SeedUser = z.output<typeof seedUserSchema>;

function reportDuplicates(
  ctx: z.RefinementCtx,
  list: string,
  field: string,
  values: readonly (string | undefined)[] | undefined,
): void {
  const seen = new Set<string>();
  values?.forEach((value, index) => {
    if (value === undefined) return;
    if (seen.has(value)) {
      // Never echo a token back, even in an error.
      const shown = field === 'token' ? 'a token' : `'${value}'`;
      const why = field === 'username' ? ' (users with a password sign in by username)' : '';
      ctx.addIssue({
        code: 'custom',
        path: [list, index, field],
        message: `duplicate ${field}: ${shown}${why}`,
      });
    }
    seen.add(value);
  });
}

/** Validates a seed given as data; `source` names it in the error (a file path or "seed"). */
export function parseSeed(input: unknown, source: string): ParsedSeed {
  const result = seedSchema.safeParse(input ?? {});
  if (!result.success) {
    throw new WafctlError(
      'CONFIG_INVALID',
      `${source} is not a valid seed: ${issueLines(result.error).join('; ')}`,
      {
        userFault: true,
      },
    );
  }
  for (const user of result.data.users ?? []) {
    registerSecret(user.token);
    registerSecret(user.password);
  }
  return result.data;
}

/**
 * The first line of a parse error, without V8's excerpt of the source (`Unexpected token 'h',
 * ..."password": hunter2"... is not valid JSON`): the file holds tokens and passwords, and nothing is
 * registered as a secret until it has been read.
 */
function parseProblem(error: unknown): string {
  const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
  return first.endsWith(' is not valid JSON') ? 'not valid JSON' : first;
}

/** Reads a seed file: JSON or YAML (YAML is tried for anything that is not a `.json` file). */
export async function loadSeedFile(path: string): Promise<EmulatorSeed> {
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new WafctlError('CONFIG_INVALID', `cannot read seed file ${path}: ${reason}`, {
      cause: error,
      userFault: true,
    });
  }
  let data: unknown;
  try {
    data = path.toLowerCase().endsWith('.json') ? JSON.parse(content) : parseYaml(content);
  } catch (error) {
    // Not kept as the cause: its message may quote the file, tokens and passwords included.
    throw new WafctlError('CONFIG_INVALID', `seed file ${path} cannot be parsed: ${parseProblem(error)}`, {
      userFault: true,
    });
  }
  return parseSeed(data, `seed file ${path}`);
}
