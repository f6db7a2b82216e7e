/** Request counters by method and route template, served at /__emulator/stats for tests and benches. */
export class RequestStats {
  private total = 0;
  private byRoute = new Map<string, number>();

  count(key: string): void {
    this.total += 1;
    this.byRoute.set(key, (this.byRoute.get(key) ?? 0) + 1);
  }

  reset(): void {
    this.total = 0;
    this.byRoute = new Map();
  }

  toJSON(): { total: number; by_route: Record<string, number> } {
    return { total: this.total, by_route: Object.fromEntries(this.byRoute) };
  }
}
