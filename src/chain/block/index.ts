/** Blocks, merkle trees, Equihash and proof of work: the public surface of src/chain/block. */
export { BlockHeader, HEADER_SIZE, EQUIHASH_INPUT_SIZE, CURRENT_BLOCK_VERSION, MIN_BLOCK_VERSION } from './header.js';
export { Block } from './block.js';
export { buildMerkleTree, merkleRoot, merkleBranch, merkleRootFromBranch, type MerkleTree } from './merkle.js';
export {
  verifyEquihash,
  equihashShape,
  equihashSolutionSize,
  indicesFromSolution,
  solutionFromIndices,
  EquihashHasher,
  EQUIHASH_200_9,
  EQUIHASH_48_5,
  KOMODOD_EQUIHASH_NK,
  type EquihashParams,
  type EquihashShape,
} from './equihash.js';
export { solveEquihash, SOLVER_MAX_COLLISION_BITS, type SolveOptions } from './equihash-solver.js';
export { setCompact, getCompact, bitLength, uint256FromLE, uint256ToLE, uint256Hex, UINT256_MASK, type DecodedCompact } from './compact.js';
export {
  KOMODO_MINDIFF_NBITS,
  POW_LIMIT,
  MEDIAN_TIME_SPAN,
  POW_AVERAGING_WINDOW,
  POW_CONTEXT_BLOCKS,
  assetChainPowParams,
  averagingWindowTimespan,
  minActualTimespan,
  maxActualTimespan,
  hashToBigInt,
  checkProofOfWork,
  getBlockProof,
  getDifficulty,
  medianTimePast,
  calculateNextWorkRequired,
  nextWorkRequired,
  type PowParams,
  type TimeAndBits,
} from './pow.js';
export { kmdGenesisBlock, regtestGenesisBlock, KMD_GENESIS_HASH, REGTEST_GENESIS_HASH } from './genesis.js';
export { checkEquihashSolution, proofOfWorkError, type ChainPowRules } from './check-pow.js';
