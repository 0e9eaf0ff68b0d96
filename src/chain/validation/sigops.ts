import { OP_1, OP_16, OP_CHECKMULTISIG, OP_CHECKMULTISIGVERIFY, OP_CHECKSIG, OP_CHECKSIGVERIFY } from '../script/opcodes.js';
import { getOp, isP2SH, skipOp } from '../script/script.js';
import type { Transaction } from '../tx/transaction.js';
import type { CoinView } from './coin.js';
import { isCoinImport } from './tx-values.js';

/** MAX_PUBKEYS_PER_MULTISIG: what an inaccurately counted CHECKMULTISIG costs. */
const MULTISIG_SIGOPS = 20;

/**
 * CScript::GetSigOpCount(fAccurate): CHECKSIG(VERIFY) counts 1, CHECKMULTISIG(VERIFY) counts 20, or the
 * key count pushed just before it when accurate. Counting stops at the first malformed push.
 */
export function scriptSigOpCount(script: Uint8Array, accurate: boolean): number {
  let n = 0;
  let pc = 0;
  let last = -1;
  // Opcodes only: skipOp walks the pushes without the object and view getOp makes per instruction
  // (every scriptSig and scriptPubKey of every transaction is counted, in blocks and the mempool).
  while (pc < script.length) {
    const op = script[pc]!;
    const next = skipOp(script, pc);
    if (next < 0) break;
    pc = next;
    if (op === OP_CHECKSIG || op === OP_CHECKSIGVERIFY) n++;
    else if (op === OP_CHECKMULTISIG || op === OP_CHECKMULTISIGVERIFY) {
      n += accurate && last >= OP_1 && last <= OP_16 ? last - OP_1 + 1 : MULTISIG_SIGOPS;
    }
    last = op;
  }
  return n;
}

/**
 * CScript::GetSigOpCount(scriptSig) on a scriptPubKey: for P2SH, the accurate count of the redeem
 * script (the scriptSig's last push); 0 when the scriptSig is not push-only or malformed.
 */
export function p2shSigOpCount(scriptPubKey: Uint8Array, scriptSig: Uint8Array): number {
  if (!isP2SH(scriptPubKey)) return scriptSigOpCount(scriptPubKey, true);
  let pc = 0;
  let data: Uint8Array = new Uint8Array(0);
  while (pc < scriptSig.length) {
    const r = getOp(scriptSig, pc);
    if (!r || r.op > OP_16) return 0;
    // GetOp clears `data` for an opcode that pushes nothing (OP_1..OP_16 included).
    data = r.data ?? new Uint8Array(0);
    pc = r.next;
  }
  return scriptSigOpCount(data, true);
}

/** GetLegacySigOpCount: every scriptSig and scriptPubKey, counted inaccurately. */
export function legacySigOpCount(tx: Transaction): number {
  let n = 0;
  for (const input of tx.vin) n += scriptSigOpCount(input.scriptSig, false);
  for (const output of tx.vout) n += scriptSigOpCount(output.script, false);
  return n;
}

/**
 * GetP2SHSigOpCount: the redeem-script sigops of the P2SH inputs. Inputs the view lacks count 0 here;
 * the caller has already checked they exist.
 */
export function p2shInputsSigOpCount(tx: Transaction, view: CoinView): number {
  if (tx.isCoinbase() || isCoinImport(tx)) return 0;
  let n = 0;
  for (const input of tx.vin) {
    const coin = view.coin(input.prevout.txid(), input.prevout.index);
    if (coin && isP2SH(coin.script)) n += p2shSigOpCount(coin.script, input.scriptSig);
  }
  return n;
}
