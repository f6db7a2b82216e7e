import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { confirm } from '../../src/cli/confirm.js';

/** Answers the prompt on a fake terminal by typing `keys` once it has been asked. */
async function answer(keys: string): Promise<{ answer: string; shown: string }> {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
    if (shown.includes('Enter a value: ')) setImmediate(() => input.write(keys));
  });
  return { answer: await confirm(input, output, true), shown };
}

describe('confirm', () => {
  it("approves only on 'yes'", async () => {
    const yes = await answer('yes\r');
    expect(yes.answer).toBe('approved');
    expect(yes.shown).toContain("Only 'yes' will be accepted to approve.");
    expect((await answer('y\r')).answer).toBe('declined');
  });

  it('reports Ctrl-C at the prompt as an interruption, not an error', async () => {
    expect((await answer('\u0003')).answer).toBe('interrupted');
  });
});
