/**
 * Script opcodes, named and numbered as komodod's `opcodetype` (src/script/script.h), and GetOpName.
 * Komodo additions: OP_CHECKCRYPTOCONDITION (0xcc), OP_CHECKCRYPTOCONDITIONVERIFY (0xcd); the
 * template-matching pseudo-opcodes OP_SMALLDATA and OP_CRYPTOCONDITION never appear in real scripts.
 */

// push value
export const OP_0 = 0x00;
export const OP_FALSE = OP_0;
export const OP_PUSHDATA1 = 0x4c;
export const OP_PUSHDATA2 = 0x4d;
export const OP_PUSHDATA4 = 0x4e;
export const OP_1NEGATE = 0x4f;
export const OP_RESERVED = 0x50;
export const OP_1 = 0x51;
export const OP_TRUE = OP_1;
export const OP_2 = 0x52;
export const OP_3 = 0x53;
export const OP_4 = 0x54;
export const OP_5 = 0x55;
export const OP_6 = 0x56;
export const OP_7 = 0x57;
export const OP_8 = 0x58;
export const OP_9 = 0x59;
export const OP_10 = 0x5a;
export const OP_11 = 0x5b;
export const OP_12 = 0x5c;
export const OP_13 = 0x5d;
export const OP_14 = 0x5e;
export const OP_15 = 0x5f;
export const OP_16 = 0x60;
// control
export const OP_NOP = 0x61;
export const OP_VER = 0x62;
export const OP_IF = 0x63;
export const OP_NOTIF = 0x64;
export const OP_VERIF = 0x65;
export const OP_VERNOTIF = 0x66;
export const OP_ELSE = 0x67;
export const OP_ENDIF = 0x68;
export const OP_VERIFY = 0x69;
export const OP_RETURN = 0x6a;
// stack ops
export const OP_TOALTSTACK = 0x6b;
export const OP_FROMALTSTACK = 0x6c;
export const OP_2DROP = 0x6d;
export const OP_2DUP = 0x6e;
export const OP_3DUP = 0x6f;
export const OP_2OVER = 0x70;
export const OP_2ROT = 0x71;
export const OP_2SWAP = 0x72;
export const OP_IFDUP = 0x73;
export const OP_DEPTH = 0x74;
export const OP_DROP = 0x75;
export const OP_DUP = 0x76;
export const OP_NIP = 0x77;
export const OP_OVER = 0x78;
export const OP_PICK = 0x79;
export const OP_ROLL = 0x7a;
export const OP_ROT = 0x7b;
export const OP_SWAP = 0x7c;
export const OP_TUCK = 0x7d;
// splice ops
export const OP_CAT = 0x7e;
export const OP_SUBSTR = 0x7f;
export const OP_LEFT = 0x80;
export const OP_RIGHT = 0x81;
export const OP_SIZE = 0x82;
// bit logic
export const OP_INVERT = 0x83;
export const OP_AND = 0x84;
export const OP_OR = 0x85;
export const OP_XOR = 0x86;
export const OP_EQUAL = 0x87;
export const OP_EQUALVERIFY = 0x88;
export const OP_RESERVED1 = 0x89;
export const OP_RESERVED2 = 0x8a;
// numeric
export const OP_1ADD = 0x8b;
export const OP_1SUB = 0x8c;
export const OP_2MUL = 0x8d;
export const OP_2DIV = 0x8e;
export const OP_NEGATE = 0x8f;
export const OP_ABS = 0x90;
export const OP_NOT = 0x91;
export const OP_0NOTEQUAL = 0x92;
export const OP_ADD = 0x93;
export const OP_SUB = 0x94;
export const OP_MUL = 0x95;
export const OP_DIV = 0x96;
export const OP_MOD = 0x97;
export const OP_LSHIFT = 0x98;
export const OP_RSHIFT = 0x99;
export const OP_BOOLAND = 0x9a;
export const OP_BOOLOR = 0x9b;
export const OP_NUMEQUAL = 0x9c;
export const OP_NUMEQUALVERIFY = 0x9d;
export const OP_NUMNOTEQUAL = 0x9e;
export const OP_LESSTHAN = 0x9f;
export const OP_GREATERTHAN = 0xa0;
export const OP_LESSTHANOREQUAL = 0xa1;
export const OP_GREATERTHANOREQUAL = 0xa2;
export const OP_MIN = 0xa3;
export const OP_MAX = 0xa4;
export const OP_WITHIN = 0xa5;
// crypto
export const OP_RIPEMD160 = 0xa6;
export const OP_SHA1 = 0xa7;
export const OP_SHA256 = 0xa8;
export const OP_HASH160 = 0xa9;
export const OP_HASH256 = 0xaa;
export const OP_CODESEPARATOR = 0xab;
export const OP_CHECKSIG = 0xac;
export const OP_CHECKSIGVERIFY = 0xad;
export const OP_CHECKMULTISIG = 0xae;
export const OP_CHECKMULTISIGVERIFY = 0xaf;
export const OP_CHECKCRYPTOCONDITION = 0xcc;
export const OP_CHECKCRYPTOCONDITIONVERIFY = 0xcd;
// expansion
export const OP_NOP1 = 0xb0;
export const OP_NOP2 = 0xb1;
export const OP_CHECKLOCKTIMEVERIFY = OP_NOP2;
export const OP_NOP3 = 0xb2;
export const OP_NOP4 = 0xb3;
export const OP_NOP5 = 0xb4;
export const OP_NOP6 = 0xb5;
export const OP_NOP7 = 0xb6;
export const OP_NOP8 = 0xb7;
export const OP_NOP9 = 0xb8;
export const OP_NOP10 = 0xb9;
// template matching params
export const OP_SMALLDATA = 0xf9;
export const OP_CRYPTOCONDITION = 0xfc;
export const OP_INVALIDOPCODE = 0xff;

const OP_NAMES: ReadonlyMap<number, string> = new Map<number, string>([
  [OP_0, '0'],
  [OP_PUSHDATA1, 'OP_PUSHDATA1'],
  [OP_PUSHDATA2, 'OP_PUSHDATA2'],
  [OP_PUSHDATA4, 'OP_PUSHDATA4'],
  [OP_1NEGATE, '-1'],
  [OP_RESERVED, 'OP_RESERVED'],
  [OP_1, '1'],
  [OP_2, '2'],
  [OP_3, '3'],
  [OP_4, '4'],
  [OP_5, '5'],
  [OP_6, '6'],
  [OP_7, '7'],
  [OP_8, '8'],
  [OP_9, '9'],
  [OP_10, '10'],
  [OP_11, '11'],
  [OP_12, '12'],
  [OP_13, '13'],
  [OP_14, '14'],
  [OP_15, '15'],
  [OP_16, '16'],
  [OP_NOP, 'OP_NOP'],
  [OP_VER, 'OP_VER'],
  [OP_IF, 'OP_IF'],
  [OP_NOTIF, 'OP_NOTIF'],
  [OP_VERIF, 'OP_VERIF'],
  [OP_VERNOTIF, 'OP_VERNOTIF'],
  [OP_ELSE, 'OP_ELSE'],
  [OP_ENDIF, 'OP_ENDIF'],
  [OP_VERIFY, 'OP_VERIFY'],
  [OP_RETURN, 'OP_RETURN'],
  [OP_TOALTSTACK, 'OP_TOALTSTACK'],
  [OP_FROMALTSTACK, 'OP_FROMALTSTACK'],
  [OP_2DROP, 'OP_2DROP'],
  [OP_2DUP, 'OP_2DUP'],
  [OP_3DUP, 'OP_3DUP'],
  [OP_2OVER, 'OP_2OVER'],
  [OP_2ROT, 'OP_2ROT'],
  [OP_2SWAP, 'OP_2SWAP'],
  [OP_IFDUP, 'OP_IFDUP'],
  [OP_DEPTH, 'OP_DEPTH'],
  [OP_DROP, 'OP_DROP'],
  [OP_DUP, 'OP_DUP'],
  [OP_NIP, 'OP_NIP'],
  [OP_OVER, 'OP_OVER'],
  [OP_PICK, 'OP_PICK'],
  [OP_ROLL, 'OP_ROLL'],
  [OP_ROT, 'OP_ROT'],
  [OP_SWAP, 'OP_SWAP'],
  [OP_TUCK, 'OP_TUCK'],
  [OP_CAT, 'OP_CAT'],
  [OP_SUBSTR, 'OP_SUBSTR'],
  [OP_LEFT, 'OP_LEFT'],
  [OP_RIGHT, 'OP_RIGHT'],
  [OP_SIZE, 'OP_SIZE'],
  [OP_INVERT, 'OP_INVERT'],
  [OP_AND, 'OP_AND'],
  [OP_OR, 'OP_OR'],
  [OP_XOR, 'OP_XOR'],
  [OP_EQUAL, 'OP_EQUAL'],
  [OP_EQUALVERIFY, 'OP_EQUALVERIFY'],
  [OP_RESERVED1, 'OP_RESERVED1'],
  [OP_RESERVED2, 'OP_RESERVED2'],
  [OP_1ADD, 'OP_1ADD'],
  [OP_1SUB, 'OP_1SUB'],
  [OP_2MUL, 'OP_2MUL'],
  [OP_2DIV, 'OP_2DIV'],
  [OP_NEGATE, 'OP_NEGATE'],
  [OP_ABS, 'OP_ABS'],
  [OP_NOT, 'OP_NOT'],
  [OP_0NOTEQUAL, 'OP_0NOTEQUAL'],
  [OP_ADD, 'OP_ADD'],
  [OP_SUB, 'OP_SUB'],
  [OP_MUL, 'OP_MUL'],
  [OP_DIV, 'OP_DIV'],
  [OP_MOD, 'OP_MOD'],
  [OP_LSHIFT, 'OP_LSHIFT'],
  [OP_RSHIFT, 'OP_RSHIFT'],
  [OP_BOOLAND, 'OP_BOOLAND'],
  [OP_BOOLOR, 'OP_BOOLOR'],
  [OP_NUMEQUAL, 'OP_NUMEQUAL'],
  [OP_NUMEQUALVERIFY, 'OP_NUMEQUALVERIFY'],
  [OP_NUMNOTEQUAL, 'OP_NUMNOTEQUAL'],
  [OP_LESSTHAN, 'OP_LESSTHAN'],
  [OP_GREATERTHAN, 'OP_GREATERTHAN'],
  [OP_LESSTHANOREQUAL, 'OP_LESSTHANOREQUAL'],
  [OP_GREATERTHANOREQUAL, 'OP_GREATERTHANOREQUAL'],
  [OP_MIN, 'OP_MIN'],
  [OP_MAX, 'OP_MAX'],
  [OP_WITHIN, 'OP_WITHIN'],
  [OP_RIPEMD160, 'OP_RIPEMD160'],
  [OP_SHA1, 'OP_SHA1'],
  [OP_SHA256, 'OP_SHA256'],
  [OP_HASH160, 'OP_HASH160'],
  [OP_HASH256, 'OP_HASH256'],
  [OP_CODESEPARATOR, 'OP_CODESEPARATOR'],
  [OP_CHECKSIG, 'OP_CHECKSIG'],
  [OP_CHECKSIGVERIFY, 'OP_CHECKSIGVERIFY'],
  [OP_CHECKMULTISIG, 'OP_CHECKMULTISIG'],
  [OP_CHECKMULTISIGVERIFY, 'OP_CHECKMULTISIGVERIFY'],
  [OP_CHECKCRYPTOCONDITION, 'OP_CHECKCRYPTOCONDITION'],
  [OP_CHECKCRYPTOCONDITIONVERIFY, 'OP_CHECKCRYPTOCONDITIONVERIFY'],
  [OP_NOP1, 'OP_NOP1'],
  [OP_NOP2, 'OP_NOP2'],
  [OP_NOP3, 'OP_NOP3'],
  [OP_NOP4, 'OP_NOP4'],
  [OP_NOP5, 'OP_NOP5'],
  [OP_NOP6, 'OP_NOP6'],
  [OP_NOP7, 'OP_NOP7'],
  [OP_NOP8, 'OP_NOP8'],
  [OP_NOP9, 'OP_NOP9'],
  [OP_NOP10, 'OP_NOP10'],
  [OP_INVALIDOPCODE, 'OP_INVALIDOPCODE'],
]);

/**
 * komodod's GetOpName: small integers print as numbers ("0", "-1", "1".."16"), 0xb1 prints as
 * "OP_NOP2" (komodod names it so, not OP_CHECKLOCKTIMEVERIFY), anything unnamed as "OP_UNKNOWN".
 */
export function opName(op: number): string {
  return OP_NAMES.get(op) ?? 'OP_UNKNOWN';
}

/** Every named opcode by its komodod name, aliases included (OP_FALSE, OP_TRUE, OP_CHECKLOCKTIMEVERIFY). */
export const OPCODES_BY_NAME: ReadonlyMap<string, number> = new Map<string, number>([
  ['OP_0', OP_0],
  ['OP_FALSE', OP_FALSE],
  ['OP_PUSHDATA1', OP_PUSHDATA1],
  ['OP_PUSHDATA2', OP_PUSHDATA2],
  ['OP_PUSHDATA4', OP_PUSHDATA4],
  ['OP_1NEGATE', OP_1NEGATE],
  ['OP_RESERVED', OP_RESERVED],
  ['OP_1', OP_1],
  ['OP_TRUE', OP_TRUE],
  ['OP_2', OP_2],
  ['OP_3', OP_3],
  ['OP_4', OP_4],
  ['OP_5', OP_5],
  ['OP_6', OP_6],
  ['OP_7', OP_7],
  ['OP_8', OP_8],
  ['OP_9', OP_9],
  ['OP_10', OP_10],
  ['OP_11', OP_11],
  ['OP_12', OP_12],
  ['OP_13', OP_13],
  ['OP_14', OP_14],
  ['OP_15', OP_15],
  ['OP_16', OP_16],
  ['OP_NOP', OP_NOP],
  ['OP_VER', OP_VER],
  ['OP_IF', OP_IF],
  ['OP_NOTIF', OP_NOTIF],
  ['OP_VERIF', OP_VERIF],
  ['OP_VERNOTIF', OP_VERNOTIF],
  ['OP_ELSE', OP_ELSE],
  ['OP_ENDIF', OP_ENDIF],
  ['OP_VERIFY', OP_VERIFY],
  ['OP_RETURN', OP_RETURN],
  ['OP_TOALTSTACK', OP_TOALTSTACK],
  ['OP_FROMALTSTACK', OP_FROMALTSTACK],
  ['OP_2DROP', OP_2DROP],
  ['OP_2DUP', OP_2DUP],
  ['OP_3DUP', OP_3DUP],
  ['OP_2OVER', OP_2OVER],
  ['OP_2ROT', OP_2ROT],
  ['OP_2SWAP', OP_2SWAP],
  ['OP_IFDUP', OP_IFDUP],
  ['OP_DEPTH', OP_DEPTH],
  ['OP_DROP', OP_DROP],
  ['OP_DUP', OP_DUP],
  ['OP_NIP', OP_NIP],
  ['OP_OVER', OP_OVER],
  ['OP_PICK', OP_PICK],
  ['OP_ROLL', OP_ROLL],
  ['OP_ROT', OP_ROT],
  ['OP_SWAP', OP_SWAP],
  ['OP_TUCK', OP_TUCK],
  ['OP_CAT', OP_CAT],
  ['OP_SUBSTR', OP_SUBSTR],
  ['OP_LEFT', OP_LEFT],
  ['OP_RIGHT', OP_RIGHT],
  ['OP_SIZE', OP_SIZE],
  ['OP_INVERT', OP_INVERT],
  ['OP_AND', OP_AND],
  ['OP_OR', OP_OR],
  ['OP_XOR', OP_XOR],
  ['OP_EQUAL', OP_EQUAL],
  ['OP_EQUALVERIFY', OP_EQUALVERIFY],
  ['OP_RESERVED1', OP_RESERVED1],
  ['OP_RESERVED2', OP_RESERVED2],
  ['OP_1ADD', OP_1ADD],
  ['OP_1SUB', OP_1SUB],
  ['OP_2MUL', OP_2MUL],
  ['OP_2DIV', OP_2DIV],
  ['OP_NEGATE', OP_NEGATE],
  ['OP_ABS', OP_ABS],
  ['OP_NOT', OP_NOT],
  ['OP_0NOTEQUAL', OP_0NOTEQUAL],
  ['OP_ADD', OP_ADD],
  ['OP_SUB', OP_SUB],
  ['OP_MUL', OP_MUL],
  ['OP_DIV', OP_DIV],
  ['OP_MOD', OP_MOD],
  ['OP_LSHIFT', OP_LSHIFT],
  ['OP_RSHIFT', OP_RSHIFT],
  ['OP_BOOLAND', OP_BOOLAND],
  ['OP_BOOLOR', OP_BOOLOR],
  ['OP_NUMEQUAL', OP_NUMEQUAL],
  ['OP_NUMEQUALVERIFY', OP_NUMEQUALVERIFY],
  ['OP_NUMNOTEQUAL', OP_NUMNOTEQUAL],
  ['OP_LESSTHAN', OP_LESSTHAN],
  ['OP_GREATERTHAN', OP_GREATERTHAN],
  ['OP_LESSTHANOREQUAL', OP_LESSTHANOREQUAL],
  ['OP_GREATERTHANOREQUAL', OP_GREATERTHANOREQUAL],
  ['OP_MIN', OP_MIN],
  ['OP_MAX', OP_MAX],
  ['OP_WITHIN', OP_WITHIN],
  ['OP_RIPEMD160', OP_RIPEMD160],
  ['OP_SHA1', OP_SHA1],
  ['OP_SHA256', OP_SHA256],
  ['OP_HASH160', OP_HASH160],
  ['OP_HASH256', OP_HASH256],
  ['OP_CODESEPARATOR', OP_CODESEPARATOR],
  ['OP_CHECKSIG', OP_CHECKSIG],
  ['OP_CHECKSIGVERIFY', OP_CHECKSIGVERIFY],
  ['OP_CHECKMULTISIG', OP_CHECKMULTISIG],
  ['OP_CHECKMULTISIGVERIFY', OP_CHECKMULTISIGVERIFY],
  ['OP_CHECKCRYPTOCONDITION', OP_CHECKCRYPTOCONDITION],
  ['OP_CHECKCRYPTOCONDITIONVERIFY', OP_CHECKCRYPTOCONDITIONVERIFY],
  ['OP_NOP1', OP_NOP1],
  ['OP_NOP2', OP_NOP2],
  ['OP_CHECKLOCKTIMEVERIFY', OP_CHECKLOCKTIMEVERIFY],
  ['OP_NOP3', OP_NOP3],
  ['OP_NOP4', OP_NOP4],
  ['OP_NOP5', OP_NOP5],
  ['OP_NOP6', OP_NOP6],
  ['OP_NOP7', OP_NOP7],
  ['OP_NOP8', OP_NOP8],
  ['OP_NOP9', OP_NOP9],
  ['OP_NOP10', OP_NOP10],
  ['OP_INVALIDOPCODE', OP_INVALIDOPCODE],
]);
