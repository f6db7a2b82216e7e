/** Human words for values and types in messages: `expected boolean, got string "yes"`. */

const MAX_SHOWN = 60;

function quote(text: string): string {
  const shown = text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}...` : text;
  return JSON.stringify(shown);
}

/** A value as messages name it: `string "yes"`, `number 3`, `a list`, `a mapping`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  switch (typeof value) {
    case 'string':
      return `string ${quote(value)}`;
    case 'number':
      return `number ${value}`;
    case 'boolean':
      return `boolean ${value}`;
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

const TYPE_WORDS: Record<string, string> = {
  string: 'string',
  number: 'number',
  int: 'integer',
  boolean: 'boolean',
  array: 'a list',
  object: 'a mapping',
  null: 'null',
};

/** A type zod expected, in words: `integer`, `a list`, `a mapping`. */
export function describeType(expected: string, isInteger: boolean): string {
  if (expected === 'number' && isInteger) return 'integer';
  return TYPE_WORDS[expected] ?? expected;
}
