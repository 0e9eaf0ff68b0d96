import { pushNumber } from '../script/script.js';
import { OP_RETURN } from '../script/opcodes.js';
import type { Block } from '../block/block.js';
import { type ValidationContext, isSaplingActive } from './context.js';
import { REJECT_INVALID, reject } from './errors.js';
import { valueOut } from './tx-values.js';

/** komodo_check_deposit's floor for coinbase outputs after the second (OP_RETURN aside). */
export const COINBASE_MIN_EXTRA_OUTPUT = 5000n;

/** `CScript() << height`: what a coinbase scriptSig must start with (BIP34). */
export function bip34Prefix(height: number): Uint8Array {
  return pushNumber(height);
}

/** ContextualCheckBlock's BIP34 rule: the coinbase scriptSig starts with the serialised height. */
export function checkCoinbaseHeight(block: Block, height: number): void {
  if (height <= 0) return;
  const scriptSig = block.txs[0]?.vin[0]?.scriptSig;
  const expect = bip34Prefix(height);
  if (!scriptSig || scriptSig.length < expect.length || !expect.every((b, i) => scriptSig[i] === b))
    reject(REJECT_INVALID, 'bad-cb-height', 100);
}

/**
 * komodo_check_deposit (komodo_gateway.cpp:153-227) as it applies to a plain asset chain: once Sapling
 * is active, from height 2, the coinbase's outputs after the first must each be in [0, MAX_MONEY), must
 * not overflow, must be ≥ 5000 sat from the third on unless OP_RETURN, and must total at most
 * subsidy − vout[0] (a bound that vanishes when vout[0] exceeds the subsidy, by komodod's uint64 wrap).
 * komodod fails CheckBlock here with no reject reason (reason '' below).
 * Not here: the ac_perc/ac_founders commission branch, and KMD's notary rules.
 */
export function checkCoinbaseDeposit(block: Block, height: number, ctx: ValidationContext): void {
  if (!isSaplingActive(ctx, height)) return;
  const cb = block.txs[0];
  if (!cb || cb.vout.length === 0) return;
  const U64 = (v: bigint) => BigInt.asUintN(64, v);
  let total = 0n; // uint64
  let prevTotal = 0n;
  let overflow = false;
  let strangeOut = 0;
  for (let i = 1; i < cb.vout.length; i++) {
    const out = cb.vout[i]!;
    const val = out.value;
    if (val < 0n || val >= ctx.maxMoney) {
      overflow = true;
      break;
    }
    // komodod reads script[0] even of an empty script; an empty one is taken as not OP_RETURN here.
    if (i > 1 && out.script[0] !== OP_RETURN && val < COINBASE_MIN_EXTRA_OUTPUT) strangeOut++;
    total = U64(total + val);
    if (total < prevTotal || (val !== 0n && total === prevTotal)) {
      overflow = true;
      break;
    }
    prevTotal = total;
  }
  let checktoshis = 0n;
  if (height > 1) checktoshis = U64(ctx.blockSubsidy(height) - cb.vout[0]!.value);
  if (height >= 2 && (overflow || total > checktoshis || strangeOut !== 0))
    reject(0, '', 0, {
      debug: `komodo_check_deposit: ht.${height} checktoshis ${checktoshis} overflow.${overflow} total ${total} strangeout.${strangeOut}`,
    });
}

/**
 * ConnectBlock's coinbase amount rules (main.cpp:3690-3713), with komodo_check_deposit first (komodod
 * runs it in CheckBlock, before connecting): block 1 must pay exactly subsidy + fees (the premine);
 * every block at most subsidy + fees (+1 sat on the KOMODO_EXTRASATOSHI chains).
 * `fees` is the sum of the block's transaction fees (checkTxInputs' results).
 * Not here: ac_notarypay, ac_perc/ac_founders commission and ac_staked (options acnode does not run).
 */
export function checkCoinbaseValue(block: Block, height: number, fees: bigint, ctx: ValidationContext): void {
  checkCoinbaseDeposit(block, height, ctx);
  const cb = block.txs[0];
  if (!cb) reject(REJECT_INVALID, 'bad-cb-missing', 100);
  const reward = ctx.blockSubsidy(height) + fees;
  const paid = valueOut(cb);
  if (height === 1 && paid !== reward)
    reject(REJECT_INVALID, 'bad-cb-amount', 100, { debug: `coinbase for block 1 pays wrong amount (actual=${paid} vs correct=${reward})` });
  if (paid > reward + ctx.extraSatoshi)
    reject(REJECT_INVALID, 'bad-cb-amount', 100, { debug: `coinbase pays too much (actual=${paid} vs limit=${reward})` });
}
