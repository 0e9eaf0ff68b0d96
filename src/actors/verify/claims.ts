/**
 * Claim slots shared between the calling thread and the script-check workers: every batch is posted to
 * a worker at once and stays in the calling thread's queue, and whichever thread first swaps the batch
 * id into slot id % CLAIM_SLOTS verifies it. Ids grow from 1 and far fewer than CLAIM_SLOTS are ever
 * outstanding, so a slot never holds the id it is asked for unless that batch was claimed.
 */
export const CLAIM_SLOTS = 1 << 16;

export function newClaims(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * CLAIM_SLOTS));
}

/** Takes batch `id` for the calling thread; false when another thread took it first. */
export function claimBatch(claims: Int32Array, id: number): boolean {
  return Atomics.exchange(claims, id & (CLAIM_SLOTS - 1), id) !== id;
}

/** Whether some thread has taken batch `id` (a look, not a claim). */
export function isClaimed(claims: Int32Array, id: number): boolean {
  return Atomics.load(claims, id & (CLAIM_SLOTS - 1)) === id;
}
