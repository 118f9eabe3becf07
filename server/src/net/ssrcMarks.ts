/**
 * Which DSCP each SSRC is to carry, and how the kernel's SSRC map has to
 * change to get there. Pure bookkeeping: the caller runs nft.
 *
 * Markings of one SSRC stack, the latest wins and removing it brings back the
 * one before: a mode switch marks anew first and removes the old marking
 * after, so the switch is one element change and no packet goes unmarked.
 * A drop wins over every DSCP, whenever either came: a retransmission gate
 * (rtxGate.ts) stays closed across the mode switches that re-mark its SSRCs.
 */
export interface SsrcDscp {
  ssrc: number;
  /** The DSCP to set, or 'drop': the SSRC's packets do not leave the host. */
  dscp: number | 'drop';
}

/** One transaction's worth of element changes. */
export interface ElementChanges {
  /** The kernel's map content is unknown: empty it first, and `add` is the whole content. */
  flush: boolean;
  remove: number[];
  add: SsrcDscp[];
}

export class SsrcMarks {
  /** Per SSRC its markings, oldest first. */
  private readonly holders = new Map<number, { owner: object; dscp: SsrcDscp['dscp'] }[]>();
  private readonly owned = new Map<object, number[]>();
  /** What the kernel's map holds, as of the last committed change. */
  private readonly applied = new Map<number, SsrcDscp['dscp']>();
  private readonly changed = new Set<number>();
  private unknown = false;

  /** SSRCs in the kernel's map. */
  get size(): number {
    return this.applied.size;
  }

  /** `owner` marks these SSRCs; an owner marks once. */
  add(owner: object, marks: readonly SsrcDscp[]): void {
    if (this.owned.has(owner)) throw new Error('this owner already marks');
    this.owned.set(owner, marks.map((m) => m.ssrc));
    for (const { ssrc, dscp } of marks) {
      const list = this.holders.get(ssrc) ?? [];
      list.push({ owner, dscp });
      this.holders.set(ssrc, list);
      this.changed.add(ssrc);
    }
  }

  /** Drops what `owner` marked; idempotent. */
  remove(owner: object): void {
    for (const ssrc of this.owned.get(owner) ?? []) {
      const list = this.holders.get(ssrc)?.filter((h) => h.owner !== owner) ?? [];
      if (list.length) this.holders.set(ssrc, list);
      else this.holders.delete(ssrc);
      this.changed.add(ssrc);
    }
    this.owned.delete(owner);
  }

  /** The changes since the last call (each SSRC once, so one transaction can carry them). */
  takeChanges(): ElementChanges {
    if (this.unknown) {
      this.changed.clear();
      return { flush: true, remove: [], add: [...this.holders.keys()].map((ssrc) => ({ ssrc, dscp: this.wanted(ssrc)! })) };
    }
    const out: ElementChanges = { flush: false, remove: [], add: [] };
    for (const ssrc of this.changed) {
      const want = this.wanted(ssrc);
      const have = this.applied.get(ssrc);
      if (want === have) continue;
      // nft refuses to add a key the map already holds with another value: delete it in the same transaction.
      if (have !== undefined) out.remove.push(ssrc);
      if (want !== undefined) out.add.push({ ssrc, dscp: want });
    }
    this.changed.clear();
    return out;
  }

  /** The kernel took `c`. */
  committed(c: ElementChanges): void {
    if (c.flush) this.applied.clear();
    for (const ssrc of c.remove) this.applied.delete(ssrc);
    for (const { ssrc, dscp } of c.add) this.applied.set(ssrc, dscp);
    if (c.flush) this.unknown = false;
  }

  /** A change failed (or nft was killed mid-way): the next one rewrites the whole map. */
  failed(): void {
    this.unknown = true;
  }

  /** Forgets everything (the map is gone with its table). */
  clear(): void {
    this.holders.clear();
    this.owned.clear();
    this.applied.clear();
    this.changed.clear();
    this.unknown = false;
  }

  private wanted(ssrc: number): SsrcDscp['dscp'] | undefined {
    const list = this.holders.get(ssrc);
    return list?.some((h) => h.dscp === 'drop') ? 'drop' : list?.at(-1)?.dscp;
  }
}
