/**
 * Crypto-conditions as komodod uses them: codec (conditions, fulfillments, URIs), verification with
 * eval dispatch, CC scripts, signing, the condition builders, CC addresses and module global keys.
 */
export {
  type CCNode, type PreimageNode, type PrefixNode, type ThresholdNode, type Ed25519Node, type Secp256k1Node,
  type EvalNode, type AnonNode, CCError,
  CC_PREIMAGE, CC_PREFIX, CC_THRESHOLD, CC_RSA, CC_ED25519, CC_SECP256K1, CC_EVAL, CC_TYPE_NAMES,
  CC_ENABLED_TYPES, CC_SIGNING_NODES,
} from './types.js';
export {
  typeId, typeName, subtypes, typeMask, cost, fingerprint, fingerprintContents, conditionBinary, conditionUri,
  decodeCondition, decodeConditionLenient, toConditionBinary,
} from './condition.js';
export { fulfillmentBinary, decodeFulfillment } from './fulfillment.js';
export { MAX_DECODE_STACK, THRESHOLD_STACK_COST, PREFIX_STACK_COST } from './asn.js';
export { ccFromJSON, ccToJSON, type CCJson } from './json.js';
export {
  type EvalResult, type EvalCheck, type EvalValidator, type EvalRegistry, type VerifyResult, type VerifyOptions,
  VALID, invalid, dispatchEval, REJECT_EVALS, ACCEPT_EVALS,
  isSupportedCondition, isFulfilled, isSignedCondition, verifyTree, verifyFulfillment,
} from './verify.js';
export { verifyEd25519 } from './ed25519.js';
export { signTreeSecp256k1, cloneTree } from './sign.js';
export {
  evalNode, secp256k1Node, thresholdNode, makeCCcond1, makeCCcond1of2, makeTokensCCcond1, makeTokensCCcond1of2,
} from './builders.js';
export {
  ccScriptPubKey, ccOptParams, CC_OPT_PARAMS_VERSION, makeCC1voutScript, makeCC1of2voutScript, ccSigVec, ccScriptSig,
  mayAcceptCryptoCondition, checkCryptoCondition, makeCCChecker, parseCCScript, signCCInput,
  type CCSighashSource, type SignCCInputParams, type SignedCCInput,
} from './script.js';
export { ccAddress, ccAddressHash, ccAddressOf, normalAddress } from './address.js';
export {
  type ModuleGlobal, MODULE_GLOBALS, moduleGlobal, globalCCAddress, globalNormalAddress, CC_BURNPUBKEY,
} from './globals.js';
export {
  EVAL_IMPORTPAYOUT, EVAL_IMPORTCOIN, EVAL_ASSETS, EVAL_FAUCET, EVAL_REWARDS, EVAL_DICE, EVAL_FSM, EVAL_AUCTION,
  EVAL_LOTTO, EVAL_HEIR, EVAL_CHANNELS, EVAL_ORACLES, EVAL_PAYMENTS, EVAL_GATEWAYS, EVAL_TOKENS, EVAL_IMPORTGATEWAY,
  EVAL_FIRSTUSER, EVAL_LASTUSER,
} from './eval-codes.js';
