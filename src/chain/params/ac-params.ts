import { isHex, fromHex } from '../encoding/hex.js';
import { ParamsError } from './errors.js';
import { COIN } from '../consensus/amount.js';
import { type ArgValues, argValue, intArg, splitList } from './args.js';

/**
 * Asset-chain parameters from the -ac_* flags, read the way komodo_args does
 * (komodo_utils.cpp:1053-1300, at 0adeeab). Values komodod would refuse, or would silently read as
 * something else (atoi64 of "abc"), are a ParamsError naming the flag.
 */

export const ASSETCHAINS_MAX_ERAS = 7;
/** Per-era arrays hold MAX_ERAS+1 slots (komodo_globals.h). */
export const ERA_SLOTS = ASSETCHAINS_MAX_ERAS + 1;
/** -ac_timelockgte's "off" value (_ASSETCHAINS_TIMELOCKOFF). */
export const ASSETCHAINS_TIMELOCKOFF = 0xffff_ffff_ffff_ffffn;
/** -ac_supply must stay at or below 90 billion coins (komodo_utils.cpp:1174). */
export const MAX_AC_SUPPLY = 90_000_000_000n;
/** ac_cc values at or above this mark a fungible cross-chain cluster (komodo_defs.h). */
export const KOMODO_FIRSTFUNGIBLEID = 100;
/** Longest chain name (assetchain.h cuts longer names; acnode refuses them). */
export const KOMODO_ASSETCHAIN_MAXLEN = 64;
/** Equihash (n,k) pairs komodod can run with -ac_nk (equihash_params_possible). */
export const EQUIHASH_NK_ALLOWED: readonly (readonly [number, number])[] = [
  [200, 9], [210, 9], [150, 5], [144, 5], [96, 5], [48, 5],
];
/** Chains on which komodod allows -ac_private. */
const PRIVATE_ALLOWED = new Set(['PIRATE', 'ZOMBIE']);

const U64_MAX = 0xffff_ffff_ffff_ffffn;
const I64_MAX = 0x7fff_ffff_ffff_ffffn;
const I32_MAX = 0x7fff_ffffn;
const U32_MAX = 0xffff_ffffn;
/** komodod's SATOSHIDEN (komodo_defs.h): the same 10^8 as COIN. */
const SATOSHIDEN = COIN;

export interface AcParams {
  /** Chain symbol (-ac_name). */
  readonly name: string;
  /** Premine in whole coins (-ac_supply, default 10). */
  readonly supply: bigint;
  /** Number of eras, 1..7 (ASSETCHAINS_LASTERA + 1). */
  readonly eras: number;
  /** Per-era lists, ERA_SLOTS long, padded by repeating the last value given. */
  readonly reward: readonly bigint[];
  readonly end: readonly bigint[];
  readonly halving: readonly bigint[];
  /**
   * The halving periods block subsidies use: `halving` except on PIRATE, whose first period komodod
   * multiplies by 5 after the magic and MAX_MONEY are computed (komodo_utils.cpp:1625-1629).
   */
  readonly subsidyHalving: readonly bigint[];
  readonly decay: readonly bigint[];
  readonly notaryPay: readonly bigint[];
  /** -ac_cc as given: this value goes into the magic. */
  readonly cc: number;
  /** ac_cc in force: forced to 2 when -ac_ccactivate/-ac_ccactivateht is set and ac_cc < 2. */
  readonly ccActive: number;
  /** -ac_ccactivate height (0: none). */
  readonly ccActivate: number;
  /** -ac_ccactivateht: eval code -> activation height. */
  readonly ccActivateHeights: ReadonlyMap<number, number>;
  /**
   * Eval codes -ac_ccenable enables, as komodod reads them (empty: every code allowed when CC is on).
   * Code 0 is always allowed on top of these.
   */
  readonly ccEnable: readonly number[];
  readonly ccLib: string;
  /** Target block time in seconds (-ac_blocktime, default 60). */
  readonly blocktime: number;
  readonly public: number;
  readonly private: number;
  readonly snapshot: number;
  /** -ac_nk (N, K), or null for the network's default. */
  readonly nk: readonly [number, number] | null;
  readonly timelockGte: bigint;
  readonly timeUnlockFrom: bigint;
  readonly timeUnlockTo: bigint;
  /** -ac_txpow masked with 3. */
  readonly txpow: number;
  readonly founders: number;
  readonly foundersReward: bigint;
  /** ASSETCHAINS_COMMISSION: -ac_perc, zeroed without ac_pubkey/ac_script, 35% default with founders. */
  readonly commission: bigint;
  /** -ac_pubkey (33 bytes) or null. */
  readonly pubkey: Uint8Array | null;
  /** -ac_script bytes (empty when not given). */
  readonly script: Uint8Array;
  /** Whether -ac_script counts (komodod tests the hex string's length > 1). */
  readonly hasScript: boolean;
  readonly import: string;
  readonly cbMaturity: number;
  readonly adaptivePow: number;
  readonly minerOpret: Uint8Array;
  /** -ac_staked, capped at 100. */
  readonly staked: number;
  /** -ac_sapling (−1: not given). */
  readonly sapling: number;
  /** -ac_overwinter, defaulting to ac_sapling when that is given. */
  readonly overwinter: number;
  readonly earlyTxidContract: number;
  /** Things komodod corrects with a console message (the caller logs them). */
  readonly warnings: readonly string[];
}

/** The -ac_* flags komodo_args reads. */
export const AC_FLAGS: readonly string[] = [
  'ac_name', 'ac_supply', 'ac_reward', 'ac_end', 'ac_halving', 'ac_decay', 'ac_notarypay', 'ac_eras',
  'ac_cc', 'ac_ccactivate', 'ac_ccactivateht', 'ac_ccenable', 'ac_cclib', 'ac_blocktime', 'ac_public',
  'ac_private', 'ac_snapshot', 'ac_nk', 'ac_algo', 'ac_timelockgte', 'ac_timeunlockfrom',
  'ac_timeunlockto', 'ac_txpow', 'ac_founders', 'ac_founders_reward', 'ac_perc', 'ac_pubkey',
  'ac_script', 'ac_beam', 'ac_coda', 'ac_import', 'ac_cbmaturity', 'ac_adaptivepow', 'ac_mineropret',
  'ac_staked', 'ac_sapling', 'ac_overwinter', 'ac_earlytxidcontract',
];

const n = (v: bigint): number => Number(v);

/** Checks a chain name against komodod's rules and what a data directory name can hold. */
export function checkChainName(name: string): string {
  if (name === '') throw new ParamsError('ac_name', '-ac_name is empty: acnode runs asset chains only');
  if (name === 'KMD') throw new ParamsError('ac_name', "can't have assetchain named KMD");
  if (name.length > KOMODO_ASSETCHAIN_MAXLEN)
    throw new ParamsError('ac_name', `-ac_name is longer than ${KOMODO_ASSETCHAIN_MAXLEN} characters`);
  // komodod would build a data directory and conf file name from these; they cannot name one.
  if (/[/\\\x00-\x1f]/.test(name) || name === '.' || name === '..')
    throw new ParamsError('ac_name', `-ac_name=${name} cannot be used as a directory name`);
  return name;
}

/** Reads the -ac_* flags into AcParams, with komodod's defaults and checks. */
export function parseAcParams(args: ArgValues): AcParams {
  const warnings: string[] = [];
  const name = checkChainName(argValue(args, 'ac_name') ?? '');

  const cc = n(intArg(args, 'ac_cc', 0n, 0n, U32_MAX));
  const ccActivate = n(intArg(args, 'ac_ccactivate', 0n, 0n, I32_MAX));
  const blocktime = n(intArg(args, 'ac_blocktime', 60n, 1n, I32_MAX));
  const pub = n(intArg(args, 'ac_public', 0n, 0n, 255n));
  const priv = n(intArg(args, 'ac_private', 0n, 0n, 255n));
  const snapshot = n(intArg(args, 'ac_snapshot', 0n, 0n, I32_MAX));

  // -ac_nk: two slots, padded like every Split list (so "-ac_nk=48" reads as 48,48).
  const nkText = argValue(args, 'ac_nk');
  let nk: readonly [number, number] | null = null;
  if (nkText !== undefined && nkText.trim() !== '') {
    const [nv, kv] = splitList('ac_nk', nkText, 2, U64_MAX);
    if (nv !== 0n && kv !== 0n) {
      if (!EQUIHASH_NK_ALLOWED.some(([a, b]) => BigInt(a) === nv && BigInt(b) === kv))
        throw new ParamsError('ac_nk', `equihash values N.${nv} and K.${kv} are not currently available`);
      nk = [n(nv), n(kv)];
    }
  }

  // -ac_ccactivateht=evalcode,height,...
  const ccActivateHeights = new Map<number, number>();
  const cahText = argValue(args, 'ac_ccactivateht');
  let cahFirst = 0n;
  if (cahText !== undefined && cahText.trim() !== '') {
    const raw = cahText.trim().split(/\s*,\s*|\s+/).filter((t) => t !== '');
    if (raw.length % 2 !== 0)
      throw new ParamsError('ac_ccactivateht', '-ac_ccactivateht takes pairs: evalcode,height,...');
    const list = splitList('ac_ccactivateht', cahText, 512, U64_MAX);
    cahFirst = list[0]!;
    for (let i = 0; i < raw.length; i += 2) {
      const code = list[i]!;
      const ht = list[i + 1]!;
      if (code > 255n) throw new ParamsError('ac_ccactivateht', `ac_ccactivateht: invalid evalcode.${code} must be between 0 and 256`);
      if (ht > I32_MAX) throw new ParamsError('ac_ccactivateht', `ac_ccactivateht: height ${ht} is out of range`);
      if (ht > 0n) ccActivateHeights.set(n(code), n(ht));
    }
  }

  const earlyTxidContract = n(intArg(args, 'ac_earlytxidcontract', 0n, 0n, I32_MAX));

  const algo = argValue(args, 'ac_algo') ?? 'equihash';
  // komodod falls back to equihash for an unknown name; acnode says so instead of running something else.
  if (algo !== 'equihash') throw new ParamsError('ac_algo', `-ac_algo=${algo} is not supported (only equihash)`);

  const erasRaw = intArg(args, 'ac_eras', 1n, I64_MAX * -1n, I64_MAX);
  if (erasRaw < 1n || erasRaw > BigInt(ASSETCHAINS_MAX_ERAS))
    throw new ParamsError('ac_eras', `-ac_eras, if specified, must be between 1 and ${ASSETCHAINS_MAX_ERAS}`);
  const eras = n(erasRaw);

  let timelockGte = BigInt.asUintN(64, intArg(args, 'ac_timelockgte', -1n, -(I64_MAX + 1n), I64_MAX));
  let timeUnlockFrom = intArg(args, 'ac_timeunlockfrom', 0n, 0n, I64_MAX);
  let timeUnlockTo = intArg(args, 'ac_timeunlockto', 0n, 0n, I64_MAX);
  if (timeUnlockFrom > timeUnlockTo) {
    // komodod turns the time lock off rather than stopping (komodo_utils.cpp:1151-1156).
    warnings.push('ASSETCHAINS_TIMELOCKGTE - must specify valid ac_timeunlockfrom and ac_timeunlockto');
    timelockGte = ASSETCHAINS_TIMELOCKOFF;
    timeUnlockFrom = timeUnlockTo = 0n;
  }

  const end = splitList('ac_end', argValue(args, 'ac_end'), ERA_SLOTS, U64_MAX);
  const reward = splitList('ac_reward', argValue(args, 'ac_reward'), ERA_SLOTS, I64_MAX);
  const halving = splitList('ac_halving', argValue(args, 'ac_halving'), ERA_SLOTS, U64_MAX);
  const decay = splitList('ac_decay', argValue(args, 'ac_decay'), ERA_SLOTS, U64_MAX);
  const notaryPay = splitList('ac_notarypay', argValue(args, 'ac_notarypay'), ERA_SLOTS, U64_MAX);
  for (let i = 0; i < ASSETCHAINS_MAX_ERAS; i++) {
    if (decay[i] === SATOSHIDEN && end[i] === 0n)
      throw new ParamsError('ac_decay', `ERA${i}: ASSETCHAINS_DECAY of 100000000 means linear and that needs ASSETCHAINS_ENDSUBSIDY`);
    if (decay[i]! > SATOSHIDEN) throw new ParamsError('ac_decay', `ERA${i}: ASSETCHAINS_DECAY cant be more than 100000000`);
  }

  const txpow = n(intArg(args, 'ac_txpow', 0n, 0n, 255n)) & 3;
  let founders = n(intArg(args, 'ac_founders', 0n, 0n, I32_MAX));
  const foundersReward = intArg(args, 'ac_founders_reward', 0n, 0n, U64_MAX);
  const supply = intArg(args, 'ac_supply', 10n, 0n, U64_MAX);
  if (supply > MAX_AC_SUPPLY) throw new ParamsError('ac_supply', '-ac_supply must be less than 90 billion');
  let commission = intArg(args, 'ac_perc', 0n, 0n, U64_MAX);

  const pubkeyHex = argValue(args, 'ac_pubkey') ?? '';
  let pubkey: Uint8Array | null = null;
  if (pubkeyHex !== '') {
    // komodod silently ignores an ac_pubkey that is not 66 characters long.
    if (pubkeyHex.length !== 66 || !isHex(pubkeyHex))
      throw new ParamsError('ac_pubkey', '-ac_pubkey must be a 33-byte public key in hex (66 characters)');
    pubkey = fromHex(pubkeyHex);
  }
  const scriptHex = argValue(args, 'ac_script') ?? '';
  if (scriptHex !== '' && !isHex(scriptHex)) throw new ParamsError('ac_script', '-ac_script must be hex');
  const script = fromHex(scriptHex);
  const hasScript = scriptHex.length > 1;

  const beam = n(intArg(args, 'ac_beam', 0n, 0n, 65535n));
  const coda = n(intArg(args, 'ac_coda', 0n, 0n, 65535n));
  const cbMaturity = n(intArg(args, 'ac_cbmaturity', 0n, 0n, I32_MAX));
  const adaptivePow = n(intArg(args, 'ac_adaptivepow', 0n, 0n, 127n));
  const opretHex = argValue(args, 'ac_mineropret') ?? '';
  if (!isHex(opretHex)) throw new ParamsError('ac_mineropret', '-ac_mineropret must be hex');
  const minerOpret = fromHex(opretHex);

  if (commission !== 0n && foundersReward !== 0n)
    throw new ParamsError('ac_perc', 'cannot use founders reward and commission on the same chain.');

  let ccEnable: number[] = [];
  let ccLib = '';
  if (cc !== 0) {
    ccLib = argValue(args, 'ac_cclib') ?? '';
    const list = splitList('ac_ccenable', argValue(args, 'ac_ccenable'), 256, 255n);
    // komodod counts the entries that differ from the previous non-zero one, then enables that many
    // entries from the start of the list (komodo_utils.cpp:1221-1243): a repeated code shortens it.
    let nonz = 0;
    let prev = 0n;
    for (const v of list) {
      if (v !== prev && v !== 0n) {
        nonz++;
        prev = v;
      }
    }
    ccEnable = list.slice(0, nonz).map(n);
  }

  if (beam !== 0) throw new ParamsError('ac_beam', 'can only have one of -ac_beam or -ac_coda');
  const selfImport = argValue(args, 'ac_import') ?? '';
  if (selfImport === 'PUBKEY') {
    if (pubkey === null) throw new ParamsError('ac_import', 'invalid -ac_pubkey for -ac_import=PUBKEY');
  } else if (selfImport === 'BEAM') {
    throw new ParamsError('ac_import', 'missing -ac_beam for BEAM rpcport');
  } else if (selfImport === 'CODA') {
    if (coda === 0) throw new ParamsError('ac_import', 'missing -ac_coda for CODA rpcport');
  } else if (selfImport !== '' && (end[0] !== 1n || supply > 0n || commission !== 0n)) {
    throw new ParamsError('ac_import', 'when using gateway import these must be set: -ac_end=1 -ac_supply=0 -ac_perc=0');
  }

  const staked = Math.min(n(intArg(args, 'ac_staked', 0n, 0n, I32_MAX)), 100);
  const sapling = n(intArg(args, 'ac_sapling', -1n, -(I32_MAX + 1n), I32_MAX));
  const overwinter = n(intArg(args, 'ac_overwinter', BigInt(sapling), -(I32_MAX + 1n), I32_MAX));
  // With ac_sapling absent (−1), ac_overwinter defaults to −1 too, which the line above already gives.

  if (pubkey !== null || hasScript) {
    if (supply > 10_000_000_000n)
      throw new ParamsError('ac_supply', 'ac_pubkey or ac_script wont work with ac_supply over 10 billion');
    if (notaryPay[0] !== 0n)
      throw new ParamsError('ac_notarypay', 'Assetchains NOTARY PAY cannot be used with ac_pubkey or ac_script.');
    if (commission === 0n && founders !== 0 && foundersReward === 0n) commission = 53846154n; // maps to 35%
  } else {
    if (commission !== 0n) {
      commission = 0n;
      warnings.push('ASSETCHAINS_COMMISSION needs an ASSETCHAINS_OVERRIDE_PUBKEY and cant be more than 100000000 (100%)');
    }
    if (founders !== 0) {
      founders = 0;
      warnings.push('ASSETCHAINS_FOUNDERS needs an ASSETCHAINS_OVERRIDE_PUBKEY or ASSETCHAINS_SCRIPTPUB');
    }
  }

  if (priv !== 0 && !PRIVATE_ALLOWED.has(name))
    throw new ParamsError('ac_private', '-ac_private for a non-PIRATE chain is not supported.');

  // Forced after the magic is computed, so the magic keeps the ac_cc given (komodo_utils.cpp:1571-1582).
  const ccActive = cc < 2 && (ccActivate !== 0 || cahFirst !== 0n) ? 2 : cc;

  const subsidyHalving = name === 'PIRATE' && halving[0] === 77777n ? [halving[0] * 5n, ...halving.slice(1)] : halving;

  return {
    name, supply, eras, reward, end, halving, subsidyHalving, decay, notaryPay, cc, ccActive, ccActivate,
    ccActivateHeights, ccEnable, ccLib, blocktime, public: pub, private: priv, snapshot, nk,
    timelockGte, timeUnlockFrom, timeUnlockTo, txpow, founders, foundersReward, commission, pubkey,
    script, hasScript, import: selfImport, cbMaturity, adaptivePow, minerOpret, staked, sapling,
    overwinter, earlyTxidContract, warnings,
  };
}
