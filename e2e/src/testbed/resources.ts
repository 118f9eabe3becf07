/** Everything the run started, stopped in reverse on every exit path. */
export class Resources {
  private readonly stops: Array<() => Promise<void>> = [];
  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }
  async release(): Promise<void> {
    for (const stop of this.stops.reverse()) await stop().catch(() => {});
    this.stops.length = 0;
  }
}
