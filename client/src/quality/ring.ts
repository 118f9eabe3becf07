/** A bounded first-in first-out buffer: the newest `capacity` items, oldest first. */
export class Ring<T> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private count = 0;

  constructor(private readonly capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError(`capacity must be a positive integer; got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  push(item: T): void {
    this.items[(this.start + this.count) % this.capacity] = item;
    if (this.count < this.capacity) this.count++;
    else this.start = (this.start + 1) % this.capacity;
  }

  toArray(): T[] {
    const out: T[] = [];
    for (let k = 0; k < this.count; k++) out.push(this.items[(this.start + k) % this.capacity]!);
    return out;
  }
}
