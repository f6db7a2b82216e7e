/**
 * The safety threshold on deletes (`settings.safety`), in one place: its defaults, its bounds, and
 * its two spellings (snake_case in files, camelCase in memory). The configuration's schema, the
 * planner's default and the saved plan's record all take them from here.
 */
import * as z from 'zod';

const maxDeletePercent = z.number().min(0).max(100);
const minExisting = z.int().min(0);

const safetyModel = z.object({ maxDeletePercent, minExisting });

/** Pure deletes above `maxDeletePercent` of a kind's existing objects, once `minExisting` exist, warn. */
export type SafetySettings = z.output<typeof safetyModel>;

export const DEFAULT_SAFETY: SafetySettings = { maxDeletePercent: 30, minExisting: 10 };

/** `settings.safety` of a configuration file: each field may be left out, for its default. */
export const safetySection = z.strictObject({
  max_delete_percent: maxDeletePercent.default(DEFAULT_SAFETY.maxDeletePercent),
  min_existing: minExisting.default(DEFAULT_SAFETY.minExisting),
});

/** `settings.safety` as a saved plan records it (every field written) <-> SafetySettings. */
export const safetyCodec = z.codec(
  z.strictObject({ max_delete_percent: maxDeletePercent, min_existing: minExisting }),
  safetyModel,
  {
    decode: (json) => ({ maxDeletePercent: json.max_delete_percent, minExisting: json.min_existing }),
    encode: (safety) => ({ max_delete_percent: safety.maxDeletePercent, min_existing: safety.minExisting }),
  },
);
