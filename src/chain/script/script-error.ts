/**
 * komodod's ScriptError enum (src/script/script_error.h) and ScriptErrorString's texts
 * (src/script/script_error.cpp). Errors without a text there (CLEANSTACK, CRYPTOCONDITION_VERIFY,
 * UNKNOWN_ERROR, ERROR_COUNT) print "unknown error", as komodod does.
 */

export const SCRIPT_ERRORS = [
  'SCRIPT_ERR_OK',
  'SCRIPT_ERR_UNKNOWN_ERROR',
  'SCRIPT_ERR_EVAL_FALSE',
  'SCRIPT_ERR_OP_RETURN',
  'SCRIPT_ERR_SCRIPT_SIZE',
  'SCRIPT_ERR_PUSH_SIZE',
  'SCRIPT_ERR_OP_COUNT',
  'SCRIPT_ERR_STACK_SIZE',
  'SCRIPT_ERR_SIG_COUNT',
  'SCRIPT_ERR_PUBKEY_COUNT',
  'SCRIPT_ERR_VERIFY',
  'SCRIPT_ERR_EQUALVERIFY',
  'SCRIPT_ERR_CHECKMULTISIGVERIFY',
  'SCRIPT_ERR_CHECKSIGVERIFY',
  'SCRIPT_ERR_NUMEQUALVERIFY',
  'SCRIPT_ERR_BAD_OPCODE',
  'SCRIPT_ERR_DISABLED_OPCODE',
  'SCRIPT_ERR_INVALID_STACK_OPERATION',
  'SCRIPT_ERR_INVALID_ALTSTACK_OPERATION',
  'SCRIPT_ERR_UNBALANCED_CONDITIONAL',
  'SCRIPT_ERR_NEGATIVE_LOCKTIME',
  'SCRIPT_ERR_UNSATISFIED_LOCKTIME',
  'SCRIPT_ERR_SIG_HASHTYPE',
  'SCRIPT_ERR_SIG_DER',
  'SCRIPT_ERR_MINIMALDATA',
  'SCRIPT_ERR_SIG_PUSHONLY',
  'SCRIPT_ERR_SIG_HIGH_S',
  'SCRIPT_ERR_SIG_NULLDUMMY',
  'SCRIPT_ERR_PUBKEYTYPE',
  'SCRIPT_ERR_CLEANSTACK',
  'SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS',
  'SCRIPT_ERR_ERROR_COUNT',
  'SCRIPT_ERR_CRYPTOCONDITION_VERIFY',
  'SCRIPT_ERR_CRYPTOCONDITION_INVALID_FULFILLMENT',
] as const;

export type ScriptError = (typeof SCRIPT_ERRORS)[number];

const TEXTS: Partial<Record<ScriptError, string>> = {
  SCRIPT_ERR_OK: 'No error',
  SCRIPT_ERR_EVAL_FALSE: 'Script evaluated without error but finished with a false/empty top stack element',
  SCRIPT_ERR_OP_RETURN: 'OP_RETURN was encountered',
  SCRIPT_ERR_SCRIPT_SIZE: 'Script is too big',
  SCRIPT_ERR_PUSH_SIZE: 'Push value size limit exceeded',
  SCRIPT_ERR_OP_COUNT: 'Operation limit exceeded',
  SCRIPT_ERR_STACK_SIZE: 'Stack size limit exceeded',
  SCRIPT_ERR_SIG_COUNT: 'Signature count negative or greater than pubkey count',
  SCRIPT_ERR_PUBKEY_COUNT: 'Pubkey count negative or limit exceeded',
  SCRIPT_ERR_VERIFY: 'Script failed an OP_VERIFY operation',
  SCRIPT_ERR_EQUALVERIFY: 'Script failed an OP_EQUALVERIFY operation',
  SCRIPT_ERR_CHECKMULTISIGVERIFY: 'Script failed an OP_CHECKMULTISIGVERIFY operation',
  SCRIPT_ERR_CHECKSIGVERIFY: 'Script failed an OP_CHECKSIGVERIFY operation',
  SCRIPT_ERR_NUMEQUALVERIFY: 'Script failed an OP_NUMEQUALVERIFY operation',
  SCRIPT_ERR_BAD_OPCODE: 'Opcode missing or not understood',
  SCRIPT_ERR_DISABLED_OPCODE: 'Attempted to use a disabled opcode',
  SCRIPT_ERR_INVALID_STACK_OPERATION: 'Operation not valid with the current stack size',
  SCRIPT_ERR_INVALID_ALTSTACK_OPERATION: 'Operation not valid with the current altstack size',
  SCRIPT_ERR_UNBALANCED_CONDITIONAL: 'Invalid OP_IF construction',
  SCRIPT_ERR_NEGATIVE_LOCKTIME: 'Negative locktime',
  SCRIPT_ERR_UNSATISFIED_LOCKTIME: 'Locktime requirement not satisfied',
  SCRIPT_ERR_SIG_HASHTYPE: 'Signature hash type missing or not understood',
  SCRIPT_ERR_SIG_DER: 'Non-canonical DER signature',
  SCRIPT_ERR_MINIMALDATA: 'Data push larger than necessary',
  SCRIPT_ERR_SIG_PUSHONLY: 'Only non-push operators allowed in signatures',
  SCRIPT_ERR_SIG_HIGH_S: 'Non-canonical signature: S value is unnecessarily high',
  SCRIPT_ERR_SIG_NULLDUMMY: 'Dummy CHECKMULTISIG argument must be zero',
  SCRIPT_ERR_PUBKEYTYPE: 'Public key is neither compressed or uncompressed',
  SCRIPT_ERR_DISCOURAGE_UPGRADABLE_NOPS: 'NOPx reserved for soft-fork upgrades',
  SCRIPT_ERR_CRYPTOCONDITION_INVALID_FULFILLMENT: 'Crypto-Condition payload is invalid',
};

export function scriptErrorString(e: ScriptError): string {
  return TEXTS[e] ?? 'unknown error';
}
