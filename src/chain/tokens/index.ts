/**
 * The Tokens module (eval 0xF2) as komodod 0adeeab has it: OP_RETURN codec, the tokencreate /
 * tokentransfer param rules, the builders and the consensus validator. Pure and synchronous.
 */
export { EVAL_TOKENS, EVAL_ASSETS } from '../cc/eval-codes.js';
export {
  EVAL_ROGUE,
  OPRETID_NONFUNGIBLEDATA,
  OPRETID_ASSETSDATA,
  OPRETID_GATEWAYSDATA,
  OPRETID_CHANNELSDATA,
  OPRETID_HEIRDATA,
  OPRETID_ROGUEGAMEDATA,
  OPRETID_FIRSTNONCCDATA,
  OPRETID_BURNDATA,
  OPRETID_IMPORTDATA,
  TOKENS_TXFEE,
  CC_MAXVINS,
  TOKEN_NAME_MAX,
  TOKEN_DESCRIPTION_MAX,
} from './constants.js';
export { IGUANA_MAXSCRIPTSIZE } from '../consensus/script.js';
export {
  type OpretBlob,
  type TokenCreateOpRet,
  type TokenTransferOpRet,
  type TokenOpRet,
  type TokenCreateFields,
  type TokenTransferFields,
  getOpReturnData,
  encodeTokenCreatePayload,
  encodeTokenCreateOpRet,
  encodeTokenTransferPayload,
  encodeTokenTransferOpRet,
  decodeTokenCreateOpRet,
  decodeTokenCreatePayload,
  decodeTokenOpRet,
  decodeTokenOpRetPayload,
  tryDecodeTokenOpRet,
  getOpretBlob,
  nftDataOf,
  cpubkeyLength,
} from './opret.js';
export { cAtof, cAtoll, doubleToInt64, parseTokenSupply, parseTokenAmount, parseHexLenient, parseUint256 } from './cparse.js';
export {
  type ParamCheck,
  type TokenCreateParams,
  type TokenCreateRequest,
  type TokenTransferParams,
  type TokenTransferRequest,
  checkTokenCreateParams,
  checkTokenTransferParams,
} from './params.js';
export {
  TOKENS_GLOBAL_PUBKEY,
  TOKENS_GLOBAL_PRIVKEY,
  TOKENS_MARKER_SCRIPT,
  cc1Script,
  tokensCC1Script,
  tokensCC1of2Script,
} from './conditions.js';
export { getCryptoCondition, isCCInput, isTokensInput, hasTokensEval, tokensVinPubkeys } from './vins.js';
export { type Coin, ccVinselect, selectNormalInputs, selectTokenInputs } from './select.js';
export {
  type SpendableCoin,
  type BuildContext,
  type BuildResult,
  type AssembledTokenTx,
  type AssembleResult,
  type SignArgs,
  type TokenCreateSpec,
  type TokenCreateArgs,
  type TokenTransferSpec,
  type TokenTransferArgs,
  newContextualTransaction,
  singleKeyLookup,
  assembleTokenCreate,
  assembleTokenTransfer,
  signTokenTx,
  buildTokenCreate,
  buildTokenTransfer,
} from './build.js';
export {
  type TokensLookup,
  type TokensValidation,
  validateTokens,
  tokenAmounts,
  tokenValueOf,
  tokenValuesOf,
  tokenValueShallow,
  isTokenMarkerVout,
} from './validate.js';
export { type TokensEvalContext, tokensEvalValidator, registerTokensValidator } from './eval.js';
