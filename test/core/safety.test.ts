/** The safety threshold's defaults and bounds, written once (src/core/safety.ts). */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { settingsSchema } from '../../src/config/schema.js';
import { DEFAULT_SAFETY, safetyCodec, safetySection } from '../../src/core/safety.js';

describe('the safety settings', () => {
  it('default, in a file that leaves them out, to DEFAULT_SAFETY, written as a saved plan writes it', () => {
    const written = z.encode(safetyCodec, DEFAULT_SAFETY);
    expect(written).toEqual({ max_delete_percent: 30, min_existing: 10 });
    expect(safetySection.parse({})).toEqual(written);
    // The configuration's schema agrees (until it takes `safetySection` itself).
    expect(settingsSchema.parse({}).safety).toEqual(written);
    expect(z.toJSONSchema(safetySection, { io: 'input' })).toEqual(
      z.toJSONSchema(settingsSchema.shape.safety.unwrap(), { io: 'input' }),
    );
  });

  it('read back from a saved plan as they were written, and refused out of bounds', () => {
    const safety = { maxDeletePercent: 50, minExisting: 3 };
    expect(safetyCodec.parse(z.encode(safetyCodec, safety))).toEqual(safety);
    expect(safetyCodec.safeParse({ max_delete_percent: 101, min_existing: 3 }).success).toBe(false);
    expect(safetyCodec.safeParse({ max_delete_percent: 30, min_existing: 1.5 }).success).toBe(false);
    expect(safetyCodec.safeParse({ max_delete_percent: 30 }).success).toBe(false);
  });
});
