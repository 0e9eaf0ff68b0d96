import { toHex } from '../encoding/hex.js';
import { SCRIPT_VERIFY_STRICTENC } from './flags.js';
import { scriptNumToInt, scriptNumValue } from './num.js';
import { opName, OP_PUSHDATA4 } from './opcodes.js';
import { getOp, isUnspendable } from './script.js';
import { checkSignatureEncoding } from './sigencoding.js';

const SIGHASH_NAMES: ReadonlyMap<number, string> = new Map([
  [0x01, 'ALL'],
  [0x02, 'NONE'],
  [0x03, 'SINGLE'],
  [0x81, 'ALL|ANYONECANPAY'],
  [0x82, 'NONE|ANYONECANPAY'],
  [0x83, 'SINGLE|ANYONECANPAY'],
]);

/**
 * komodod's ScriptToAsmStr (src/core_write.cpp). Pushes of at most 4 bytes print as CScriptNum decimals
 * (no minimality check), longer ones as hex; with `decodeSighash` and a spendable script, a push that is a
 * strictly encoded signature with a defined hash type prints as hex without that byte plus "[ALL]" etc.
 * A malformed push appends "[error]" and ends the string.
 */
export function scriptToAsm(script: Uint8Array, decodeSighash = false): string {
  let str = '';
  let pc = 0;
  const unspendable = isUnspendable(script);
  while (pc < script.length) {
    if (str !== '') str += ' ';
    const r = getOp(script, pc);
    if (!r) return str + '[error]';
    pc = r.next;
    if (r.op <= OP_PUSHDATA4) {
      const data = r.data!;
      if (data.length <= 4) {
        str += String(scriptNumToInt(scriptNumValue(data)));
      } else if (decodeSighash && !unspendable && checkSignatureEncoding(data, SCRIPT_VERIFY_STRICTENC) === null) {
        const name = SIGHASH_NAMES.get(data[data.length - 1]!);
        str += name ? `${toHex(data.subarray(0, data.length - 1))}[${name}]` : toHex(data);
      } else {
        str += toHex(data);
      }
    } else {
      str += opName(r.op);
    }
  }
  return str;
}
