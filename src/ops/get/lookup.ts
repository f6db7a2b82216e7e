/**
 * `wafctl get KIND ID_OR_NAME`, with the kind's GET-one (src/kinds/, `get.find`): by id, or by
 * name for a family keyed by name (notifications); a family that also has a name (groups,
 * schedules) is looked up by it when no object has that id (ids are tried first, so an id always
 * means that object). The API answers an unknown id with a 400; that becomes "<kind> "x" not
 * found", keeping the API's own words in the message.
 */
import { type ApiClient, ApiError, type ListKind } from '../../api/index.js';
import { WafctlError } from '../../core/errors.js';
import { getKindNamed } from './kinds.js';

function isNotFound(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 400 || error.status === 404);
}

/** GET-one; when the API says there is no such object, `named` gets a chance before "not found". */
export async function getRecord(api: ApiClient, kind: ListKind, idOrName: string): Promise<object> {
  const { noun, spec } = getKindNamed(kind);
  const { by, one, named } = spec.find;
  try {
    return await one(api, idOrName);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    const found = named === undefined ? undefined : await named(api, idOrName);
    if (found !== undefined) return found;
    const what = named === undefined ? by : `${by} or name`;
    throw new WafctlError(
      'API_ERROR',
      `${noun} "${idOrName}" not found: no ${noun} has this ${what} (${error.message})`,
      { userFault: true, cause: error },
    );
  }
}
