/**
 * The miner's protocol: what it answers (status, generate, setGenerate) and what it announces
 * (generateChanged, which starts or stops the -gen pacer).
 */
import type { Protocol } from '../../machines/messages.js';

/** What getmininginfo and getgenerate read of the miner. */
export interface MinerStatus {
  generating: boolean;
  genProcLimit: number;
  blocksMined: number;
  /** The last block this node assembled and mined (nLastBlockSize / nLastBlockTx). */
  lastBlock: { size: number; txs: number };
  /** GetLocalSolPS: solutions checked against the target per second of solving since the start. */
  localSolPS: number;
}

/**
 * A block template as CreateNewBlock leaves it (getblocktemplate): the unsolved block (coinbase first,
 * merkle root set) and, per transaction, komodod's vTxFees (the coinbase's: minus the fees) and vTxSigOps.
 */
export interface BlockTemplate {
  block: Uint8Array;
  height: number;
  /** The tip it builds on, its median time past and the height's subsidy (GetBlockSubsidy). */
  prevHash: string;
  mtp: number;
  subsidy: bigint;
  fees: bigint[];
  sigops: number[];
}

export type MinerRequest =
  | { op: 'status' }
  /** Mines n blocks one after the other; answers their hashes (fewer when the node stops meanwhile). */
  | { op: 'generate'; n: number }
  /** -gen / setgenerate: mining paced at the block time on or off; procs is -genproclimit. */
  | { op: 'setGenerate'; on: boolean; procs?: number | undefined }
  /** A block template on the current tip (getblocktemplate), not solved. */
  | { op: 'template' };

export interface MinerReplies {
  status: MinerStatus;
  generate: string[];
  setGenerate: null;
  template: BlockTemplate;
}

export interface GenerateChanged {
  type: 'generateChanged';
  on: boolean;
}

export type MinerNotice = GenerateChanged;

export type MinerProtocol = Protocol<MinerRequest, MinerReplies, MinerNotice>;
