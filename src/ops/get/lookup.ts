/**
 * `wafctl get KIND ID_OR_NAME`. Rules, application rules and schedules are addressed by id,
 * notifications by name (their only key); groups and schedules also by name, looked up in the
 * listing when no object has that id (ids are tried first, so an id always means that object).
 * The API answers an unknown id with a 400; that becomes "<kind> "x" not found", keeping the API's
 * own words in the message.
 */
import { type ApiClient, ApiError, type ListKind, type RecordsByKind } from '../../api/index.js';
import { WafctlError } from '../../core/errors.js';
import { GET_NOUNS } from './kinds.js';

function isNotFound(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 400 || error.status === 404);
}

function notFound(kind: ListKind, idOrName: string, by: string, cause: ApiError): WafctlError {
  return new WafctlError(
    'API_ERROR',
    `${GET_NOUNS[kind]} "${idOrName}" not found: no ${GET_NOUNS[kind]} has this ${by} (${cause.message})`,
    { userFault: true, cause },
  );
}

/** GET-one; when the API says there is no such id, `byName` gets a chance before "not found". */
async function byIdThenName<T>(
  kind: ListKind,
  idOrName: string,
  getById: () => Promise<T>,
  byName?: () => Promise<T | undefined>,
): Promise<T> {
  try {
    return await getById();
  } catch (error) {
    if (!isNotFound(error)) throw error;
    const named = byName === undefined ? undefined : await byName();
    if (named !== undefined) return named;
    throw notFound(kind, idOrName, byName === undefined ? 'id' : 'id or name', error);
  }
}

async function scheduleNamed(api: ApiClient, name: string) {
  // `name` filters on "all or part" of the name: the exact match is picked from the candidates.
  for await (const schedule of api.schedules.iterate({ name })) {
    if (schedule.name === name) return schedule;
  }
  return undefined;
}

const LOOKUPS: { [K in ListKind]: (api: ApiClient, idOrName: string) => Promise<RecordsByKind[K]> } = {
  groups: (api, x) =>
    byIdThenName(
      'groups',
      x,
      () => api.groups.get(x),
      async () => {
        const group = (await api.groups.list()).find((g) => g.name === x);
        return group === undefined ? undefined : api.groups.get(group.id);
      },
    ),
  rules: (api, x) => byIdThenName('rules', x, () => api.rules.get(x)),
  'application-rules': (api, x) => byIdThenName('application-rules', x, () => api.applicationRules.get(x)),
  notifications: async (api, name) => {
    try {
      return await api.notifications.get(name);
    } catch (error) {
      if (isNotFound(error)) throw notFound('notifications', name, 'name', error);
      throw error;
    }
  },
  schedules: (api, x) =>
    byIdThenName(
      'schedules',
      x,
      () => api.schedules.get(x),
      () => scheduleNamed(api, x),
    ),
};

export function getRecord<K extends ListKind>(
  api: ApiClient,
  kind: K,
  idOrName: string,
): Promise<RecordsByKind[K]> {
  return LOOKUPS[kind](api, idOrName);
}
