/**
 * Where one session's join spends its time: each phase's duration (ms), in the
 * order the phases ended, from the session's start to its first decoded frame.
 * The player exposes them on window.pels (joinPhasesMs) for the join benchmark.
 */
export class JoinPhases {
  private last: number;
  private readonly phases: Record<string, number> = {};

  constructor(private readonly now: () => number) {
    this.last = now();
  }

  /** Ends phase `name` now: the time since the previous phase ended. */
  end(name: string): void {
    const t = this.now();
    this.phases[name] = Math.round(t - this.last);
    this.last = t;
  }

  /** The phases so far, in the order they ended. */
  get ms(): Record<string, number> {
    return { ...this.phases };
  }
}
