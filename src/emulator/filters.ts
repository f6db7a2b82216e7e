/**
 * Query-string filters of the paginated lists. Each method names the documented parameter it reads;
 * absent parameters filter nothing, and unknown parameters are ignored. List parameters accept both
 * `name[]=a&name[]=b` (what the client sends) and `name=a&name=b`. A value that cannot be parsed is
 * collected in `errors` (answered as the list's 400).
 */

type Getter<T, V> = (row: T) => V;

const INTEGER = /^-?\d+$/;

export class ListFilter<T> {
  readonly errors: string[] = [];
  private readonly tests: ((row: T) => boolean)[] = [];

  constructor(private readonly query: URLSearchParams) {}

  /** `name` (exact), `name_list` (any of), `name_search` (case-insensitive part) — the forms listed. */
  text(name: string, get: Getter<T, string | null>, forms: readonly ('exact' | 'list' | 'search')[]): this {
    if (forms.includes('exact')) this.exact(name, get);
    if (forms.includes('list')) this.anyOf(`${name}_list`, get);
    if (forms.includes('search')) this.contains(`${name}_search`, get);
    return this;
  }

  /** `name` (exact), `name_start` and `name_end` (inclusive range). */
  integer(name: string, get: Getter<T, number | null>): this {
    this.intCompare(name, get, (value, bound) => value === bound);
    this.intCompare(`${name}_start`, get, (value, bound) => value >= bound);
    return this.intCompare(`${name}_end`, get, (value, bound) => value <= bound);
  }

  exact(param: string, get: Getter<T, string | null>): this {
    const wanted = this.single(param);
    if (wanted !== undefined) this.tests.push((row) => get(row) === wanted);
    return this;
  }

  anyOf(param: string, get: Getter<T, string | null>): this {
    const wanted = this.multiple(param);
    if (wanted !== undefined) this.tests.push((row) => includes(wanted, get(row)));
    return this;
  }

  noneOf(param: string, get: Getter<T, string | null>): this {
    const unwanted = this.multiple(param);
    if (unwanted !== undefined) this.tests.push((row) => !includes(unwanted, get(row)));
    return this;
  }

  contains(param: string, get: Getter<T, string | null>): this {
    const part = this.single(param)?.toLowerCase();
    if (part !== undefined) this.tests.push((row) => get(row)?.toLowerCase().includes(part) === true);
    return this;
  }

  atLeast(param: string, get: Getter<T, number | null>): this {
    return this.intCompare(param, get, (value, bound) => value >= bound);
  }

  atMost(param: string, get: Getter<T, number | null>): this {
    return this.intCompare(param, get, (value, bound) => value <= bound);
  }

  /** `true` or `false`: rows whose flag equals it. */
  flag(param: string, get: Getter<T, boolean>): this {
    const wanted = this.boolean(param);
    if (wanted !== undefined) this.tests.push((row) => get(row) === wanted);
    return this;
  }

  /** `true`: only rows with the flag set; `false`: no filtering (the spec defines only `true`). */
  onlyWhenTrue(param: string, get: Getter<T, boolean>): this {
    if (this.boolean(param) === true) this.tests.push((row) => get(row));
    return this;
  }

  /** False when no filter parameter was given, so a listing may page without looking at rows. */
  get active(): boolean {
    return this.tests.length > 0;
  }

  matches(row: T): boolean {
    for (const test of this.tests) if (!test(row)) return false;
    return true;
  }

  private intCompare(
    param: string,
    get: Getter<T, number | null>,
    compare: (value: number, bound: number) => boolean,
  ): this {
    const raw = this.single(param);
    if (raw === undefined) return this;
    if (!INTEGER.test(raw) || !Number.isSafeInteger(Number(raw))) {
      this.errors.push(`${param}: expected an integer, got '${raw}'`);
      return this;
    }
    const bound = Number(raw);
    this.tests.push((row) => {
      const value = get(row);
      return value !== null && compare(value, bound);
    });
    return this;
  }

  private boolean(param: string): boolean | undefined {
    const raw = this.single(param);
    if (raw === undefined || raw === 'true' || raw === 'false')
      return raw === undefined ? undefined : raw === 'true';
    this.errors.push(`${param}: expected true or false, got '${raw}'`);
    return undefined;
  }

  /** The last value given, as most web frameworks do for a repeated scalar parameter. */
  private single(param: string): string | undefined {
    const values = this.query.getAll(param);
    return values.length > 0 ? values[values.length - 1] : undefined;
  }

  private multiple(param: string): ReadonlySet<string> | undefined {
    const values = [...this.query.getAll(param), ...this.query.getAll(`${param}[]`)];
    return values.length > 0 ? new Set(values) : undefined;
  }
}

function includes(values: ReadonlySet<string>, value: string | null): boolean {
  return value !== null && values.has(value);
}
