/**
 * The Assets module (eval 0xE3, the token DEX) as komodod 0adeeab has it: the order blob inside the
 * token OP_RETURN, the order arithmetic, the builders for every order transaction and the consensus
 * validator. Pure and synchronous.
 */
export {
  type AssetFuncid,
  type AssetBlob,
  type AssetTokenOpRet,
  encodeAssetBlob,
  decodeAssetBlob,
  decodeAssetTokenOpRet,
  tryDecodeAssetTokenOpRet,
  encodeAssetOrderOpRet,
} from './opret.js';
export {
  type BidFill,
  type AskFill,
  validateBidRemainder,
  validateAskRemainder,
  setBidFillamounts,
  setAskFillamounts,
  askPaidAmount,
  orderAmount,
} from './amounts.js';
export {
  ASSETS_GLOBAL_PUBKEY,
  ASSETS_GLOBAL_PRIVKEY,
  ASSETS_TXFEE,
  ASSETS_GLOBAL_CC_SCRIPT,
  askLockScript,
  assetsMarkerScript,
  tokenOutScript,
  scriptAddressKey,
} from './conditions.js';
export {
  type AssembledAssetsTx,
  type AssetsAssembleResult,
  type AskSpec,
  type BidSpec,
  type FillAskSpec,
  type FillBidSpec,
  type CancelSpec,
  assembleAsk,
  assembleBid,
  assembleFillAsk,
  assembleFillBid,
  assembleCancelAsk,
  assembleCancelBid,
  signAssetsTx,
  buildAsk,
  buildBid,
  buildFillAsk,
  buildFillBid,
  buildCancelAsk,
  buildCancelBid,
} from './build.js';
export { type AssetsLookup, type AssetsValidation, validateAssets } from './validate.js';
export { type AssetsEvalContext, assetsEvalValidator, registerAssetsValidator } from './eval.js';
