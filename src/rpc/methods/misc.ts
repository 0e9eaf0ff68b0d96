import type { NodeServices } from '../../actors/protocol.js';
import { getDifficulty } from '../../chain/block/pow.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { NULL_HASH_HEX } from '../../chain/encoding/hex.js';

import type { ChainParams } from '../../chain/params/chain-params.js';
import { stakedChainKind } from '../../chain/params/subsidy.js';
import type { JsonObj } from '../../chain/tx/json.js';
import type { JsonOut } from '../json-value.js';
import type { RpcMethod } from '../table.js';
import { chainTip, longestChain } from './blockchain.js';
import { HELP_getinfo } from './help-texts.js';
import { askRpc } from '../ask.js';
import { CLIENT_VERSION, KOMODO_VERSION } from '../../chain/p2p/version.js';
import { PROTOCOL_VERSION } from '../../chain/p2p/messages.js';
import { DEFAULT_MIN_RELAY_TX_FEE as MIN_RELAY_TX_FEE } from '../../chain/validation/policy.js';

/** CWallet FEATURE_LATEST: the version a new wallet file is written with. */
export const WALLET_VERSION = 60000;

/**
 * getinfo's wallet fields, in komodod's two groups: walletversion and balance (after the notary fields),
 * then keypoololdest, keypoolsize, [unlocked_until] and paytxfee (after difficulty). They come from the
 * wallet actor (src/actors/wallet): GetBalance is the mature outputs of confirmed transactions plus
 * those of unconfirmed ones the wallet itself sent (IsTrusted), the key pool its pool keys;
 * unlocked_until appears once the wallet is encrypted; paytxfee is payTxFee's rate (settxfee, 0 when unset).
 */
async function walletFields(node: NodeServices): Promise<{ balance: JsonObj; keypool: JsonObj }> {
  // GetOldestKeyPoolTime tops the pool up first (TopUpKeyPool), as getwalletinfo does.
  const info = await askRpc(node.wallet, { op: 'walletInfo' });
  const balance = info.balance;
  return {
    balance: { walletversion: WALLET_VERSION, balance: new Amount(balance) },
    // GetOldestKeyPoolTime: the current time when the pool is empty.
    keypool: {
      keypoololdest: info.pool.size === 0 ? Math.floor(Date.now() / 1000) : info.pool.oldest,
      keypoolsize: info.pool.size,
      ...(info.unlockedUntil !== undefined ? { unlocked_until: info.unlockedUntil } : {}),
      paytxfee: new Amount(info.payTxFee),
    },
  };
}

/** The comma-joined per-era values getinfo prints (std::to_string of each era's value). */
function eraList(values: readonly bigint[], eras: number): string {
  return values.slice(0, eras).map((v) => v.toString()).join(',');
}

/** notaries_staked.h: STAKED_NOTARIES_TIMESTAMP and STAKED_ERA_GAP. */
const STAKED_NOTARIES_TIMESTAMP = [1572523200, 1704244444, 1704244444, 1704244444];
const STAKED_ERA_GAP = 777;

/** STAKED_era(timestamp): the notary era of a block time, 0 inside a gap. */
export function stakedEra(t: number): number {
  if (t <= STAKED_NOTARIES_TIMESTAMP[0]!) return 1;
  for (let i = 1; i < STAKED_NOTARIES_TIMESTAMP.length; i++) {
    if (t <= STAKED_NOTARIES_TIMESTAMP[i]! && t >= STAKED_NOTARIES_TIMESTAMP[i - 1]! + STAKED_ERA_GAP) return i + 1;
  }
  return 0;
}

/** The asset-chain fields after `rpcport` (misc.cpp:335-371). */
function chainFields(p: ChainParams, tipTime: number): JsonObj {
  const ac = p.ac;
  const o: JsonObj = {};
  // STAKED_ERA: set as each block connects on LABS/CFEK/TEST chains, the era of the tip's time.
  if (stakedChainKind(p.name) !== 0) o.StakedEra = stakedEra(tipTime);
  o.magic = p.magicInt32;
  o.premine = ac.supply;
  const lastEra = ac.eras - 1;
  if (ac.reward[0] !== 0n || lastEra > 0) {
    if (lastEra > 0) o.eras = ac.eras;
    o.reward = eraList(ac.reward, ac.eras);
    o.halving = eraList(ac.halving, ac.eras);
    o.decay = eraList(ac.decay, ac.eras);
    o.endsubsidy = eraList(ac.end, ac.eras);
    o.notarypay = eraList(ac.notaryPay, ac.eras);
  }
  if (ac.commission !== 0n) o.commission = ac.commission;
  if (ac.staked !== 0) o.staked = ac.staked;
  return o;
}

/** The `control` category's getinfo (rpc/misc.cpp). */
export function miscMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getinfo',
      category: 'control',
      minArgs: 0,
      maxArgs: 0,
      help: HELP_getinfo,
      handler: async () => {
        const tip = await chainTip(node);
        const [params, wallet, sync] = await Promise.all([
          askRpc(node.chainStore, { op: 'params' }),
          walletFields(node),
          longestChain(node, tip.height),
        ]);
        const p = params ?? node.baseParams;
        // getinfo's longestchain never reads below our own height (when peers report one at all).
        const longest = sync.longest !== 0 && tip.height > sync.longest ? tip.height : sync.longest;
        const o: JsonObj = {
          version: CLIENT_VERSION,
          protocolversion: PROTOCOL_VERSION,
          KMDversion: KOMODO_VERSION,
          // KOMODO_INSYNC: set when a connected block reaches the longest chain the peers report.
          synced: sync.synced,
          // Never notarised: komodo_notarized_height gives 0 and null hashes.
          notarized: 0,
          prevMoMheight: 0,
          notarizedhash: NULL_HASH_HEX,
          notarizedtxid: NULL_HASH_HEX,
          // notarizedtxid_height asks a local KMD daemon about the notarisation txid: none, so "mempool".
          notarizedtxid_height: 'mempool',
          KMDnotarized_height: 0,
          notarized_confirms: 0,
          ...wallet.balance,
          blocks: tip.height,
          longestchain: longest,
          tiptime: tip.time,
          difficulty: getDifficulty(tip.bits),
          ...wallet.keypool,
          // ASSETCHAINS_SAPLING: the Sapling activation height in force (-1 until it is known).
          sapling: p.activation.sapling,
          timeoffset: 0,
          connections: sync.peers,
          proxy: '',
          testnet: false,
          relayfee: new Amount(MIN_RELAY_TX_FEE),
          errors: '',
        };
        // NOTARY_PUBKEY: -pubkey; not a notary, so no notaryid/notaryname/lastmined.
        if (node.config.pubkey) o.pubkey = node.config.pubkey;
        if (p.ac.ccActive !== 0) o.CCid = p.ac.ccActive;
        o.name = p.name;
        o.p2pport = p.p2pPort;
        o.rpcport = node.config.rpcport || p.rpcPort;
        Object.assign(o, chainFields(p, tip.time));
        return o as JsonOut;
      },
    },
  ];
}

