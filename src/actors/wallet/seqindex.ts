/**
 * A set of order positions (nOrderPos) read newest first, a walk costing what it yields plus the dead
 * entries it meets, each met once: the walk drops them from the part it walked. Positions mostly come
 * in increasing order (a new wallet transaction takes the next one): those are appended to a typed
 * array (4 bytes a member, no object per member); the others (an old transaction relabelled into the
 * set) wait in a small sorted list merged into the array once it is an eighth of it.
 *
 * Membership is the caller's (`isLive`): an entry whose position no longer belongs is dead, skipped
 * and dropped where a walk meets it, or all at once when the dead are half the entries. A position
 * added while a dead entry for it remains is listed once (duplicates are skipped where met).
 */
export class SeqIndex {
  private main = new Int32Array(16);
  private n = 0;
  /** Positions added below the array's last, kept sorted when read. */
  private late: number[] = [];
  private lateSorted = true;
  /** Entries known dead (told by dropped(), less those a walk removed). */
  private dead = 0;

  /** How many entries are held (members, and dead or duplicate entries not yet dropped). */
  get entries(): number {
    return this.n + this.late.length;
  }

  add(seq: number): void {
    const last = this.n > 0 ? this.main[this.n - 1]! : -1;
    if (seq > last) this.push(seq);
    else if (seq !== last) {
      this.late.push(seq);
      this.lateSorted = false;
      if (this.late.length > 64 && this.late.length * 8 > this.n) this.compact(null);
    }
  }

  /** A member left (its position no longer belongs): once the dead are half the entries, they all go. */
  dropped(isLive: (seq: number) => boolean): void {
    this.dead++;
    if (this.dead > 64 && this.dead * 2 > this.entries) this.compact(isLive);
  }

  /** The live positions, newest first. Stop early by leaving the loop (the walked part is cleaned then). */
  *newestFirst(isLive: (seq: number) => boolean): Generator<number> {
    if (!this.lateSorted) {
      this.late.sort((a, b) => a - b);
      this.lateSorted = true;
    }
    const main = this.main;
    const late = this.late;
    const n0 = this.n;
    let i = n0 - 1;
    let j = late.length - 1;
    let prev = -1;
    /** The array's live entries walked, newest first (what the walked tail becomes). */
    const kept: number[] = [];
    try {
      while (i >= 0 || j >= 0) {
        const fromMain = j < 0 || (i >= 0 && main[i]! >= late[j]!);
        const seq = fromMain ? main[i--]! : late[j--]!;
        if (seq === prev || !isLive(seq)) continue;
        prev = seq;
        if (fromMain) kept.push(seq);
        yield seq;
      }
    } finally {
      // The walked tail [i + 1, n) of the array holds its live entries only, in order.
      const walked = this.n - (i + 1);
      // (Only when nothing was added meanwhile: the walk's caller never adds, but the array is left as it is if it did.)
      if (walked > kept.length && this.main === main && this.n === n0) {
        this.dead = Math.max(0, this.dead - (walked - kept.length));
        this.n = i + 1;
        for (let k = kept.length - 1; k >= 0; k--) this.push(kept[k]!);
      }
    }
  }

  clear(): void {
    this.main = new Int32Array(16);
    this.n = 0;
    this.late = [];
    this.lateSorted = true;
    this.dead = 0;
  }

  private push(seq: number): void {
    if (this.n === this.main.length) {
      const grown = new Int32Array(this.main.length * 2);
      grown.set(this.main);
      this.main = grown;
    }
    this.main[this.n++] = seq;
  }

  /** The late positions merged into the array, the duplicate entries dropped and, with `isLive`, the dead: O(entries). */
  private compact(isLive: ((seq: number) => boolean) | null): void {
    const late = this.late.sort((a, b) => a - b);
    const main = this.main.subarray(0, this.n);
    const out = new Int32Array(Math.max(16, Math.ceil((main.length + late.length) * 1.25)));
    let k = 0;
    let i = 0;
    let j = 0;
    let prev = -1;
    while (i < main.length || j < late.length) {
      const seq = j >= late.length || (i < main.length && main[i]! <= late[j]!) ? main[i++]! : late[j++]!;
      if (seq === prev || (isLive && !isLive(seq))) continue;
      out[k++] = prev = seq;
    }
    this.main = out;
    this.n = k;
    this.late = [];
    this.lateSorted = true;
    if (isLive) this.dead = 0;
  }
}
