import { OP_NOP, OP_NOP10, OP_RESERVED, opName } from '../../src/chain/script/opcodes.js';
import { concatScript, pushData, pushNumber } from '../../src/chain/script/script.js';
import { fromHex } from '../../src/chain/encoding/hex.js';
import * as flagsMod from '../../src/chain/script/flags.js';

/**
 * The test assembler of komodod's unit tests (ParseScript, src/core_read.cpp), used by
 * script_valid/invalid.json and tx_valid/invalid.json:
 *  - a decimal (optionally negative) number is pushed as `CScript << int64`;
 *  - `0x…` inserts raw bytes (not a push);
 *  - `'text'` pushes the text;
 *  - an opcode name, with or without "OP_", from OP_NOP..OP_NOP10 plus OP_RESERVED, named by
 *    GetOpName (so 0xb1 is "NOP2"; "CHECKLOCKTIMEVERIFY" is not a name komodod's parser knows).
 */
const NAMES = new Map<string, number>();
for (let o = 0; o <= OP_NOP10; o++) {
  if (o < OP_NOP && o !== OP_RESERVED) continue;
  const name = opName(o);
  if (name === 'OP_UNKNOWN') continue;
  NAMES.set(name, o);
  NAMES.set(name.replace('OP_', ''), o);
}

export function parseTestScript(s: string): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const w of s.split(/[ \t\n]+/)) {
    if (w === '') continue;
    if (/^-?[0-9]*$/.test(w) && w !== '-') {
      // atoi64 of "-" or "" would be 0; neither occurs in the vectors.
      parts.push(pushNumber(BigInt(w)));
    } else if (w.startsWith('0x') && w.length > 2 && /^([0-9a-fA-F]{2})+$/.test(w.slice(2))) {
      parts.push(fromHex(w.slice(2)));
    } else if (w.length >= 2 && w.startsWith("'") && w.endsWith("'")) {
      parts.push(pushData(new TextEncoder().encode(w.slice(1, -1))));
    } else if (NAMES.has(w)) {
      parts.push(Uint8Array.of(NAMES.get(w)!));
    } else {
      throw new Error(`script parse error: ${w}`);
    }
  }
  return concatScript(...parts);
}

/** ParseScriptFlags of komodod's transaction_tests.cpp: the names it maps (there is no DERSIG). */
const FLAG_NAMES: Record<string, number> = {
  NONE: flagsMod.SCRIPT_VERIFY_NONE,
  P2SH: flagsMod.SCRIPT_VERIFY_P2SH,
  STRICTENC: flagsMod.SCRIPT_VERIFY_STRICTENC,
  LOW_S: flagsMod.SCRIPT_VERIFY_LOW_S,
  SIGPUSHONLY: flagsMod.SCRIPT_VERIFY_SIGPUSHONLY,
  MINIMALDATA: flagsMod.SCRIPT_VERIFY_MINIMALDATA,
  NULLDUMMY: flagsMod.SCRIPT_VERIFY_NULLDUMMY,
  DISCOURAGE_UPGRADABLE_NOPS: flagsMod.SCRIPT_VERIFY_DISCOURAGE_UPGRADABLE_NOPS,
  CLEANSTACK: flagsMod.SCRIPT_VERIFY_CLEANSTACK,
  CHECKLOCKTIMEVERIFY: flagsMod.SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY,
};

export function parseTestFlags(s: string): number {
  if (s === '') return 0;
  let flags = 0;
  for (const w of s.split(',')) {
    const f = FLAG_NAMES[w];
    if (f === undefined) throw new Error(`Bad test: unknown verification flag '${w}'`);
    flags |= f;
  }
  return flags;
}
