import type { NodeServices } from '../../actors/protocol.js';
import { addressKey } from '../../chain/address/index-key.js';
import { decodeAddress } from '../../chain/address/address.js';
import { komodoNotaries } from '../../chain/notaries/seasons.js';
import type { ChainParams } from '../../chain/params/chain-params.js';
import { RpcError, RPC_INVALID_ADDRESS_OR_KEY } from '../errors.js';
import { valueFromAmount } from '../amount.js';
import type { RpcMethod } from '../table.js';
import { askRpc } from '../ask.js';

/** The burn address of ac_notarypay chains (pubkey 02000…0), as komodod names it. */
const BURN_ADDRESS = 'REDVp3ox1pbcWYCzySadfHhk8UU3HM4k5x';

/**
 * checkburnaddress (rpc/misc.cpp): the burn address's balance and everything it ever received, from
 * the address index; with the tip's height and its cumulative notary pay (nNotaryPay), which is 0 on
 * a chain never notarised (no block has paid notaries). Null without -addressindex.
 */
async function burnAddress(node: NodeServices): Promise<{ balance: bigint; received: bigint; notaryPay: bigint; height: number } | null> {
  const key = addressKey(1, decodeAddress(BURN_ADDRESS)!.hash);
  // The history's Σ deltas and Σ positive deltas, from the address's running totals.
  const t = await askRpc(node.chainStore, { op: 'addressTotals', addresses: [key] });
  // Without -addressindex GetAddressIndex fails.
  if (!t) return null;
  return { balance: t.balance, received: t.received, notaryPay: 0n, height: t.tip.height };
}

/** komodo_notarypayamount: the era's ac_notarypay shared by the notaries (0 past the last era or with none). */
function notaryPayAmount(p: ChainParams, height: number, notaryCount: number): bigint {
  const lastEra = p.ac.eras - 1;
  let era = 0;
  if (p.ac.end[0]! > 1n) {
    for (era = 0; era <= lastEra; era++) if (p.ac.end[era]! > BigInt(height) || p.ac.end[era] === 0n) break;
  }
  if (era > lastEra || notaryCount === 0) return 0n;
  return p.ac.notaryPay[era]! / BigInt(notaryCount);
}

async function notaryPayChain(node: NodeServices): Promise<ChainParams> {
  const p = (await askRpc(node.chainStore, { op: 'params' })) ?? node.baseParams;
  if (p.ac.notaryPay[0] === 0n) throw new Error('only works for ac_notarypay chains');
  return p;
}

/** The `addressindex` category's ac_notarypay methods (rpc/misc.cpp). */
export function notaryPayMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'checknotarization',
      category: 'addressindex',
      maxArgs: 0,
      help: 'checknotarization\n' + '\nReturns true if burn address balance is greater than total notary pay. (requires addressindex to be enabled).\n',
      handler: async () => {
        await notaryPayChain(node);
        // Without the index komodod sees a zero balance and zero pay: false.
        const b = (await burnAddress(node)) ?? { balance: 0n, received: 0n, notaryPay: 0n };
        return !(b.notaryPay >= b.balance || b.received !== b.balance);
      },
    },
    {
      name: 'getnotarypayinfo',
      category: 'addressindex',
      maxArgs: 0,
      help:
        'getnotarypayinfo\n' +
        '\nReturns infomation about ac_notaypay status (requires addressindex to be enabled).\n' +
        '\nResult:\n' +
        '{\n' +
        '  "height"  (number) The current block height\n' +
        '  "balance"  (number) The current balance of the burn address\n' +
        '  "spent"  (bool) true if coins have been spent from the burn address\n' +
        '  "Total_NotaryPay"  (number) Total amount paid to notaries\n' +
        '  "Estimated_Notarizations_Left"  (number) the estimated amount of notarizations left before the balance is consumed\n' +
        '  "Estimated_Days_Left"  (number) the estimated amount of days the current balance will last\n' +
        '  "Estimated_Height"  (number) the estimated block height funds will run out\n' +
        '}\n',
      handler: async () => {
        const p = await notaryPayChain(node);
        const b = await burnAddress(node);
        // komodod reads an unset height then (undefined behaviour): refused here as the address methods refuse.
        if (!b) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'No information available for address');
        // komodo_notaries at the tip's height and time.
        const hash = await askRpc(node.chainStore, { op: 'blockHash', height: b.height });
        const entry = hash ? await askRpc(node.chainStore, { op: 'entry', hash }) : null;
        const time = entry?.header.time ?? 0;
        const count = komodoNotaries(p.name, time, time).length;
        const notaryPay = notaryPayAmount(p, b.height, count) * BigInt(count);
        const spent = b.received !== b.balance;
        let left = 0n;
        let days = 0n;
        let endHeight = 0n;
        // komodod divides by the pay without a check (a zero pay stops it); here nothing is estimated then.
        if (!spent && notaryPay !== 0n) {
          left = (b.balance - b.notaryPay) / notaryPay;
          days = (BigInt(p.ac.blocktime * 5) * left) / 3600n / 24n;
          endHeight = left * 5n + BigInt(b.height);
        }
        return {
          height: b.height,
          balance: valueFromAmount(b.balance),
          spent,
          Total_NotaryPay: valueFromAmount(b.notaryPay),
          Estimated_Notarizations_Left: left,
          Estimated_Days_Left: days,
          Estimated_Height: endHeight,
        };
      },
    },
  ];
}
