import { fromHex } from '../../chain/encoding/hex.js';
import type { WalletOptions } from '../../actors/wallet/logic.js';
import type { Asks, NodeParts } from './parts.js';

/** GetBoolArg("-rescan"): a bare flag is true, else atoi(value) != 0. */
function boolArg(v: string | undefined): boolean {
  return v !== undefined && (v === '' || (parseInt(v, 10) || 0) !== 0);
}

/** The wallet: its key store and data directory, -rescan, -txexpirydelta, -pubkey, the parameters in force. */
export function walletOptions(parts: NodeParts, asks: Asks): WalletOptions {
  const { config } = parts;
  return {
    chain: asks.chain,
    mempool: asks.mempool,
    keys: parts.keys,
    dir: config.datadir,
    params: parts.params.get,
    expiryDelta: config.txexpirydelta,
    rescanBlocks: boolArg(config.flags.get('rescan')),
    ...(config.pubkey ? { externalPubkey: fromHex(config.pubkey) } : {}),
    ...(config.walletResendTimes ? { resendTimes: config.walletResendTimes } : {}),
    log: parts.log,
  };
}
