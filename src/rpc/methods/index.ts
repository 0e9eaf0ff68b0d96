import type { NodeServices } from '../../actors/protocol.js';
import type { RpcMethod } from '../table.js';
import { helpMethod } from '../table.js';
import { controlMethods } from './control.js';
import { blockchainMethods } from './blockchain.js';
import { blockTreeMethods } from './blocktree.js';
import { txOutProofMethods } from './txoutproof.js';
import { txOutSetMethods } from './txoutset.js';
import { chainTxStatsMethods } from './chaintxstats.js';
import { rawTransactionMethods } from './rawtransactions.js';
import { miscMethods } from './misc.js';
import { miningInfoMethods } from './mining-info.js';
import { devMethods } from './dev.js';
import { miningMethods } from './mining.js';
import { networkMethods } from './network.js';
import { tokensMethods } from './tokens.js';
import { assetsMethods } from './assets.js';
import { walletMethods } from './wallet.js';
import { walletCoinMethods } from './wallet-coins.js';
import { walletSignMethods } from './wallet-sign.js';
import { walletPoolMethods } from './wallet-pool.js';
import { walletReceivedMethods } from './wallet-received.js';
import { walletCryptMethods } from './wallet-crypt.js';
import { walletAccountMethods } from './wallet-accounts.js';
import { walletWatchMethods } from './wallet-watch.js';
import { rawWalletMethods } from './rawwallet.js';
import { addressMethods } from './address.js';
import { utilMethods } from './util.js';
import { netInfoMethods } from './netinfo.js';
import { miningStatsMethods } from './mining-stats.js';
import { blockTemplateMethods } from './blocktemplate.js';
import { prioritiseMethods } from './prioritise.js';
import { notaryMethods } from './notary.js';
import { notaryPayMethods } from './notarypay.js';
import { cclibMethods } from './cclib.js';
import { coinSupplyMethods } from './coinsupply.js';
import { verifyChainMethods } from './verifychain.js';
import { feeEstimateMethods } from './feeestimate.js';
import { blockDeltasMethods } from './blockdeltas.js';
import { snapshotMethods } from './snapshot.js';
import { miningCsvMethods } from './miningcsv.js';
import { kvMethods } from './kv.js';

/** Every method the node serves, by category module. */
export function nodeMethods(node: NodeServices): RpcMethod[] {
  return [helpMethod, ...controlMethods(node), ...blockchainMethods(node), ...blockTreeMethods(node), ...txOutProofMethods(node), ...txOutSetMethods(node), ...chainTxStatsMethods(node), ...rawTransactionMethods(node), ...miscMethods(node), ...miningInfoMethods(node), ...miningMethods(node), ...networkMethods(node), ...tokensMethods(node), ...assetsMethods(node), ...walletMethods(node), ...walletCoinMethods(node), ...walletSignMethods(node), ...walletPoolMethods(node), ...walletReceivedMethods(node), ...walletCryptMethods(node), ...walletAccountMethods(node), ...walletWatchMethods(node), ...rawWalletMethods(node), ...addressMethods(node), ...devMethods(node), ...utilMethods(node), ...netInfoMethods(node), ...miningStatsMethods(node), ...blockTemplateMethods(node), ...prioritiseMethods(node), ...notaryMethods(node), ...notaryPayMethods(node), ...cclibMethods(node), ...coinSupplyMethods(node), ...verifyChainMethods(node), ...feeEstimateMethods(node), ...blockDeltasMethods(node), ...snapshotMethods(node), ...miningCsvMethods(node), ...kvMethods(node)];
}
