import { OP_CHECKMULTISIG } from './opcodes.js';
import { concatScript, pushData, pushNumber } from './script.js';

/** GetScriptForMultisig: OP_n <key>... OP_m OP_CHECKMULTISIG (n of the m keys, in the order given). */
export function multisigScript(nRequired: number, pubkeys: readonly Uint8Array[]): Uint8Array {
  return concatScript(pushNumber(nRequired), ...pubkeys.map(pushData), pushNumber(pubkeys.length), OP_CHECKMULTISIG);
}
