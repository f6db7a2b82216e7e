/**
 * Seeds: the user directory (with the tokens and passwords that let users call the API, or sign in
 * through `POST /api/v1/signin`), the read-only rules, and groups the server holds at start. Every
 * token and password read here is registered as a secret at once, so no later message can print it;
 * neither is ever stored (the store keeps only id and username).
 *
 * Seeded groups may hold permission ids outside the spec's catalog (the real Seer Box has more
 * permissions than the spec names), each with the name the server shows for it; the API then accepts
 * those ids too (routes/groups.ts). Whatever the seed says, the directory holds the built-in `admin`
 * user and `admins` group (demo-directory.ts).
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { WafctlError } from '../core/errors.js';
import { registerSecret } from '../core/secrets.js';
import { GROUPS, RULES, USERS } from './collections.js';
import {
  ADMIN_USER,
  ADMINS_GROUP_DESCRIPTION,
  ADMINS_GROUP_ID,
  ADMINS_GROUP_NAME,
  DEMO_RULES,
  DEMO_USERS,
} from './demo-directory.js';
import type { Group, Rule, User } from './records.js';
import { ruleSchema } from './records.js';
import { issueLines } from './validation.js';

const seedGroupSchema = z.strictObject({
  /** Default: the next id of the group counter, in seed order. */
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  description: z.string().default(''),
  is_admin: z.boolean().default(false),
  permissions: z
    .array(
      z.strictObject({
        permission_id: z.int().min(0),
        service_id: z.string().default(''),
        /** The server's name of a permission outside the spec's catalog (ignored for a catalog id). */
        permission_name: z.string().optional(),
      }),
    )
    .default([]),
  /** Members: ids of the directory's users. */
  user_ids: z.array(z.string().min(1)).default([]),
});

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
    groups: z.array(seedGroupSchema).optional(),
  })
  .superRefine((seed, ctx) => {
    // Keys and unique fields, as the collection table has them.
    for (const spec of [USERS, RULES, GROUPS]) {
      const records: readonly Readonly<Record<string, unknown>>[] | undefined = seed[spec.name];
      for (const field of [spec.key, ...(spec.unique ?? [])]) {
        reportDuplicates(
          ctx,
          spec.name,
          field,
          records?.map((record) => record[field] as string | undefined),
        );
      }
    }
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

/** A seeded group as stored, with an id only if the seed gave one (the store numbers the others). */
export type DirectoryGroup = Omit<Group, 'id'> & { id?: string };

/** What a store starts with when it has no state file: the seed's, else the demo's, plus the built-ins. */
export interface Directory {
  users: User[];
  rules: readonly Rule[];
  groups: DirectoryGroup[];
}

/**
 * The directory a fresh store holds: the seed's users (else the demo's) with the built-in `admin`
 * user, the seed's rules (else the demo's), and the built-in `admins` group followed by the seed's
 * groups. A seed group naming a user the directory does not hold is refused.
 */
export function directoryOf(seed: ParsedSeed, now: string): Directory {
  const users: User[] = (seed.users ?? DEMO_USERS).map(({ id, username }) => ({ id, username }));
  let admin = users.find((u) => u.username === ADMIN_USER.username);
  if (admin === undefined && !users.some((u) => u.id === ADMIN_USER.id)) {
    admin = ADMIN_USER;
    users.unshift(ADMIN_USER);
  }
  const known = new Set(users.map((u) => u.id));
  const problems: string[] = [];
  const groups: DirectoryGroup[] = (seed.groups ?? []).map((g, index) => {
    for (const id of g.user_ids) {
      if (!known.has(id)) problems.push(`groups.${index}.user_ids: unknown user id '${id}'`);
    }
    return {
      ...(g.id === undefined ? {} : { id: g.id }),
      name: g.name,
      description: g.description,
      is_admin: g.is_admin,
      created_at: now,
      updated_at: now,
      permissions: g.permissions.map((p) => ({
        permission_id: p.permission_id,
        service_id: p.service_id,
        inserted_at: now,
        expired_at: null,
        ...(p.permission_name === undefined ? {} : { permission_name: p.permission_name }),
      })),
      user_ids: [...new Set(g.user_ids)],
    };
  });
  if (problems.length > 0) {
    throw new WafctlError('CONFIG_INVALID', `seed is not a valid seed: ${problems.join('; ')}`, {
      userFault: true,
    });
  }
  if (!groups.some((g) => g.name === ADMINS_GROUP_NAME)) {
    const takenId = groups.some((g) => g.id === ADMINS_GROUP_ID);
    groups.unshift({
      ...(takenId ? {} : { id: ADMINS_GROUP_ID }),
      name: ADMINS_GROUP_NAME,
      description: ADMINS_GROUP_DESCRIPTION,
      is_admin: true,
      created_at: now,
      updated_at: now,
      permissions: [],
      user_ids: admin === undefined ? [] : [admin.id],
    });
  }
  return { users, rules: seed.rules ?? DEMO_RULES, groups };
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
