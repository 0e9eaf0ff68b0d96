import { Transaction } from '../../chain/tx/transaction.js';
import { Outpoint, TxIn } from '../../chain/tx/input.js';
import { TxOut } from '../../chain/tx/output.js';
import { fromHexReversed } from '../../chain/encoding/hex.js';
import { DEFAULT_MIN_RELAY_TX_FEE, feeForSize, isDust } from '../../chain/validation/policy.js';
import { COIN } from '../../chain/consensus/amount.js';
import type { Recipient } from './protocol.js';

export type { Recipient } from './protocol.js';

/**
 * The wallet's pure transaction building, as komodod's CWallet::SelectCoinsMinConf, SelectCoins,
 * CreateTransaction and FundTransaction (wallet.cpp) do it: coin selection by stochastic subset
 * approximation, the fee loop (GetMinimumFee at 1000 sat/kB, raised to a 5000-sat floor), change
 * inserted before the last recipient, dust change given to the fee.
 */

export const CENT = 1_000_000n;
/** komodod's floor on a wallet transaction's fee (CreateTransaction: nFeeNeeded < 5000 → 5000). */
export const WALLET_MIN_FEE = 5000n;
/** -mintxfee default: 1000 sat per kB (CWallet::minTxFee). */
export const MIN_TX_FEE_PER_KB = 1000n;
/** -maxtxfee default: 0.1 coin. */
export const MAX_TX_FEE = COIN / 10n;

/** A wallet output that may be spent (komodod's COutput). */
export interface Spendable {
  txid: string;
  n: number;
  value: bigint;
  script: Uint8Array;
  /** Confirmations: 0 for a mempool output. */
  depth: number;
  /** The transaction that created it spends the wallet's coins (IsFromMe): trusted when unconfirmed. */
  fromMe: boolean;
  /** The scriptSig size a signature will take (DummySignatureCreator): 107 for P2PKH, 73 for P2PK. */
  sigSize: number;
}

export class WalletBuildError extends Error {}

/**
 * GetMinimumFee with no fee estimate, then CreateTransaction's 5000-sat floor. `payTxFeePerK` is
 * payTxFee (settxfee; 0 when unset): with fPayAtLeastCustomFee (on by default) a fee under the
 * per-kB rate is raised to that rate; unset, minTxFee's 1000 sat/kB applies.
 */
export function walletFee(size: number, payTxFeePerK = 0n): bigint {
  let fee = feeForSize(payTxFeePerK, size);
  if (fee > 0n && fee < payTxFeePerK) fee = payTxFeePerK;
  if (fee === 0n) fee = feeForSize(MIN_TX_FEE_PER_KB, size);
  const relay = feeForSize(DEFAULT_MIN_RELAY_TX_FEE, size);
  if (fee < relay) fee = relay;
  if (fee > MAX_TX_FEE) fee = MAX_TX_FEE;
  return fee < WALLET_MIN_FEE ? WALLET_MIN_FEE : fee;
}

function shuffle<T>(a: T[], rand: () => number): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
}

/**
 * ApproximateBestSubset: randomised subset sums closest to (at least) the target. Sums are plain
 * numbers while they stay exact (below 2^53 satoshis), BigInt otherwise: the loop runs up to 1000
 * times over the small coins, and BigInt additions would dominate the selection's cost.
 */
function approximateBestSubset(values: bigint[], totalLower: bigint, target: bigint, rand: () => number, iterations = 1000): { best: boolean[]; total: bigint } {
  if (totalLower + target < 2n ** 53n) {
    const nums = values.map(Number);
    const r = subsetSearch(nums, Number(totalLower), Number(target), rand, iterations);
    return { best: r.best, total: BigInt(r.total) };
  }
  return subsetSearch(values, totalLower, target, rand, iterations);
}

function subsetSearch<T extends number | bigint>(values: T[], totalLower: T, target: T, rand: () => number, iterations: number): { best: boolean[]; total: T } {
  const zero = (typeof target === 'bigint' ? 0n : 0) as T;
  // One inclusion vector, cleared each repetition, and the best one copied into another: the loop
  // runs up to 1000 times a selection, an array or two allocated each time cost more than its sums.
  const best = new Uint8Array(values.length).fill(1);
  const included = new Uint8Array(values.length);
  let nBest = totalLower;
  for (let rep = 0; rep < iterations && nBest !== target; rep++) {
    included.fill(0);
    let total = zero;
    let reached = false;
    for (let pass = 0; pass < 2 && !reached; pass++) {
      for (let i = 0; i < values.length; i++) {
        if (pass === 0 ? rand() < 0.5 : included[i] === 0) {
          total = ((total as number) + (values[i] as number)) as T;
          included[i] = 1;
          if (total >= target) {
            reached = true;
            if (total < nBest) {
              nBest = total;
              best.set(included);
            }
            total = ((total as number) - (values[i] as number)) as T;
            included[i] = 0;
          }
        }
      }
    }
  }
  return { best: Array.from(best, (b) => b === 1), total: nBest };
}

/** SelectCoinsMinConf: null when the coins deep enough cannot reach the target. */
export function selectCoinsMinConf(target: bigint, confMine: number, confTheirs: number, coins: readonly Spendable[], rand: () => number = Math.random): { coins: Spendable[]; total: bigint } | null {
  const pool = coins.slice();
  shuffle(pool, rand);
  let lowestLarger: Spendable | undefined;
  const lower: Spendable[] = [];
  let totalLower = 0n;
  for (const c of pool) {
    if (c.depth < (c.fromMe ? confMine : confTheirs)) continue;
    if (c.value === target) return { coins: [c], total: c.value };
    if (c.value < target + CENT) {
      lower.push(c);
      totalLower += c.value;
      // komodod stops gathering small coins once they amply cover the target.
      if (totalLower > 4n * target + CENT) break;
    } else if (!lowestLarger || c.value < lowestLarger.value) {
      lowestLarger = c;
    }
  }
  if (totalLower === target) return { coins: lower, total: totalLower };
  if (totalLower < target) return lowestLarger ? { coins: [lowestLarger], total: lowestLarger.value } : null;

  lower.sort((a, b) => (a.value > b.value ? -1 : a.value < b.value ? 1 : 0));
  const values = lower.map((c) => c.value);
  let { best, total } = approximateBestSubset(values, totalLower, target, rand);
  if (total !== target && totalLower >= target + CENT) ({ best, total } = approximateBestSubset(values, totalLower, target + CENT, rand));
  if (lowestLarger && ((total !== target && total < target + CENT) || lowestLarger.value <= total)) {
    return { coins: [lowestLarger], total: lowestLarger.value };
  }
  const chosen = lower.filter((_, i) => best[i]);
  return { coins: chosen, total: chosen.reduce((s, c) => s + c.value, 0n) };
}

/**
 * SelectCoins: preset inputs (which must all be wallet coins) count first; then 1/6, 1/1 and 0/1
 * confirmations (mine/theirs), spending unconfirmed change last. komodod asks the other coins for the
 * whole target, not the part the preset inputs leave (wallet.cpp:3572): kept as komodod does it.
 */
export function selectCoins(target: bigint, coins: readonly Spendable[], preset: readonly Spendable[], rand: () => number = Math.random): { coins: Spendable[]; total: bigint } | null {
  const presetKeys = new Set(preset.map((c) => `${c.txid}:${c.n}`));
  const presetValue = preset.reduce((s, c) => s + c.value, 0n);
  const rest = preset.length === 0 ? coins : coins.filter((c) => !presetKeys.has(`${c.txid}:${c.n}`));
  let picked: { coins: Spendable[]; total: bigint } | null;
  if (target <= presetValue) picked = { coins: [], total: 0n };
  else picked = selectCoinsMinConf(target, 1, 6, rest, rand) ?? selectCoinsMinConf(target, 1, 1, rest, rand) ?? selectCoinsMinConf(target, 0, 1, rest, rand);
  if (!picked) return null;
  return { coins: [...preset, ...picked.coins.filter((c) => !presetKeys.has(`${c.txid}:${c.n}`))], total: picked.total + presetValue };
}

export interface BuildRequest {
  /** The transaction whose header (version, group, locktime, expiry) the result keeps. */
  base: Transaction;
  recipients: Recipient[];
  coins: readonly Spendable[];
  /** Inputs the caller already chose (fundrawtransaction's existing inputs); null when one is not a wallet coin. */
  preset: readonly Spendable[] | null;
  changeScript: Uint8Array;
  maxTxSize: number;
  /** payTxFee per kB (settxfee), 0 when unset. */
  payTxFee?: bigint;
  rand?: () => number;
}

export interface BuildResult {
  tx: Transaction;
  /** The selected coins, in input order. */
  inputs: Spendable[];
  fee: bigint;
  changePos: number;
}

/**
 * CreateTransaction without signing (sizes measured with dummy signatures): repeats selection with
 * the fee the last size needed until the fee suffices. Failures carry komodod's strFailReason.
 */
export function buildTransaction(req: BuildRequest): BuildResult {
  const rand = req.rand ?? Math.random;
  let value = 0n;
  let subtractCount = 0;
  for (const r of req.recipients) {
    if (value < 0n || r.value < 0n) throw new WalletBuildError('Transaction amounts must be positive');
    value += r.value;
    if (r.subtractFee) subtractCount++;
  }
  if (req.recipients.length === 0 || value < 0n) throw new WalletBuildError('Transaction amounts must be positive');
  if (req.preset === null) throw new WalletBuildError('Insufficient funds');

  let fee = 0n;
  for (let round = 0; round < 100; round++) {
    const tx = req.base.clone();
    tx.vin = [];
    tx.vout = [];
    let changePos = -1;
    let first = true;
    const total = subtractCount === 0 ? value + fee : value;
    for (const r of req.recipients) {
      const out = new TxOut(r.value, r.script);
      if (r.subtractFee) {
        out.value -= fee / BigInt(subtractCount);
        if (first) {
          first = false;
          out.value -= fee % BigInt(subtractCount);
        }
      }
      if (isDust(out)) {
        if (r.subtractFee && fee > 0n) {
          throw new WalletBuildError(out.value < 0n ? 'The transaction amount is too small to pay the fee' : 'The transaction amount is too small to send after the fee has been deducted');
        }
        throw new WalletBuildError('Transaction amount too small');
      }
      tx.vout.push(out);
    }
    const sel = selectCoins(total, req.coins, req.preset, rand);
    if (!sel) throw new WalletBuildError('Insufficient funds');
    let change = sel.total - value;
    if (subtractCount === 0) change -= fee;
    if (change > 0n) {
      const out = new TxOut(change, req.changeScript);
      if (subtractCount > 0 && isDust(out)) {
        // Raise the change out of dust, taking it from the first recipient that pays the fee.
        const missing = dustThresholdOf(out) - out.value;
        out.value += missing;
        const i = req.recipients.findIndex((r) => r.subtractFee);
        tx.vout[i]!.value -= missing;
        if (isDust(tx.vout[i]!)) throw new WalletBuildError('The transaction amount is too small to send after the fee has been deducted');
      }
      if (isDust(out)) {
        fee += change;
      } else {
        // komodod: "dont change first or last" — change goes before the last recipient.
        changePos = tx.vout.length - 1;
        tx.vout.splice(changePos, 0, out);
      }
    }
    for (const c of sel.coins) tx.vin.push(new TxIn(new Outpoint(fromHexReversed(c.txid), c.n), new Uint8Array(c.sigSize), 0xfffffffe));
    const size = tx.toRaw().length;
    for (const input of tx.vin) input.scriptSig = new Uint8Array(0);
    if (size >= req.maxTxSize) throw new WalletBuildError('Transaction too large');
    const needed = walletFee(size, req.payTxFee ?? 0n);
    if (needed < feeForSize(DEFAULT_MIN_RELAY_TX_FEE, size)) throw new WalletBuildError('Transaction too large for fee policy');
    if (fee >= needed) return { tx, inputs: sel.coins, fee, changePos };
    fee = needed;
  }
  throw new WalletBuildError('Insufficient funds');
}

function dustThresholdOf(out: TxOut): bigint {
  // The smallest value that is not dust for this script.
  let lo = 0n;
  let hi = 1_000_000n;
  while (lo < hi) {
    const mid = (lo + hi) / 2n;
    if (isDust(new TxOut(mid, out.script))) lo = mid + 1n;
    else hi = mid;
  }
  return lo;
}

/**
 * FundTransaction: the original transaction with the new inputs appended (empty scriptSig,
 * sequence 0xfffffffe) and the change output inserted at changepos; existing inputs untouched.
 */
export function fundTransaction(
  orig: Transaction,
  coins: readonly Spendable[],
  preset: readonly Spendable[] | null,
  changeScript: Uint8Array,
  maxTxSize: number,
  rand?: () => number,
  payTxFee = 0n,
): { tx: Transaction; fee: bigint; changePos: number } {
  const recipients = orig.vout.map((o) => ({ script: o.script, value: o.value, subtractFee: false }));
  // komodod's AvailableCoins keeps only the coin control's selected coins once any is selected
  // (wallet.cpp:3283, without Bitcoin's fAllowOtherInputs test): a transaction that already has
  // inputs is funded by those inputs alone.
  const pool = orig.vin.length > 0 ? [] : coins;
  const built = buildTransaction({ base: orig, recipients, coins: pool, preset, changeScript, maxTxSize, payTxFee, ...(rand ? { rand } : {}) });
  const tx = orig.clone();
  if (built.changePos !== -1) tx.vout.splice(built.changePos, 0, built.tx.vout[built.changePos]!);
  const have = new Set(tx.vin.map((i) => i.prevout.key()));
  for (const input of built.tx.vin) if (!have.has(input.prevout.key())) tx.vin.push(input);
  return { tx, fee: built.fee, changePos: built.changePos };
}
