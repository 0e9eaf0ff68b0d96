/** A small seeded PRNG (mulberry32) so mutation tests are reproducible: a failure names its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One random mutation of a byte string: flip, set, truncate, extend, insert or delete. */
export function mutate(data: Uint8Array, rnd: () => number): Uint8Array {
  const pick = (n: number) => Math.floor(rnd() * n);
  const out = Array.from(data);
  const kind = pick(7);
  const at = pick(Math.max(1, out.length));
  switch (kind) {
    case 0:
      out[at] = (out[at] ?? 0) ^ (1 << pick(8));
      break;
    case 1:
      out[at] = pick(256);
      break;
    case 2:
      out.length = pick(out.length);
      break;
    case 3:
      for (let i = pick(8) + 1; i > 0; i--) out.push(pick(256));
      break;
    case 4:
      out.splice(at, 0, ...Array.from({ length: pick(4) + 1 }, () => pick(256)));
      break;
    case 5:
      out.splice(at, pick(4) + 1);
      break;
    default:
      // A hostile count: a CompactSize prefix announcing far more than follows.
      out.splice(at, 0, 0xfe, 0xff, 0xff, 0xff, 0x01);
  }
  return Uint8Array.from(out);
}
