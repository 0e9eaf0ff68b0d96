import { BufferWriter } from '../encoding/writer.js';
import { fromHex } from '../encoding/hex.js';
import { COIN } from '../consensus/amount.js';
import { Transaction } from '../tx/transaction.js';
import { Outpoint, TxIn } from '../tx/input.js';
import { TxOut } from '../tx/output.js';
import { Block } from './block.js';
import { BlockHeader } from './header.js';
import { KOMODO_MINDIFF_NBITS } from './pow.js';

/**
 * The genesis blocks komodod builds in chainparams.cpp: KMD mainnet's, shared by every asset chain,
 * and regtest's (Zcash's), rebuilt from their fields.
 */

/** The display hash of the KMD / asset-chain genesis block (chainparams.cpp hashGenesisBlock assert). */
export const KMD_GENESIS_HASH = '027e3758c3a65b12aa1046462b486d0a63bfa1beae327897f56c5cfb7daaae71';
/** The display hash of the regtest genesis block. */
export const REGTEST_GENESIS_HASH = '029f11d80ef9765602235e1bc9727e3eb6ba20839319f761fee920d63401e327';

/** The 65-byte key both genesis coinbases pay to (P2PK). */
const GENESIS_PUBKEY = fromHex(
  '04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f',
);
const OP_CHECKSIG = 0xac;

/** A direct push (under 76 bytes, all these scripts need). */
function push(w: BufferWriter, data: Uint8Array): void {
  w.u8(data.length).bytes(data);
}

/** CScript() << nBits << CScriptNum(4) << timestamp, as the genesis coinbases' scriptSig. */
function genesisScriptSig(nBitsPushed: number, timestamp: string): Uint8Array {
  const w = new BufferWriter(128);
  // CScriptNum serialisation of a positive 32-bit number whose top byte has no sign bit: 4 LE bytes.
  const num = new Uint8Array(4);
  new DataView(num.buffer).setUint32(0, nBitsPushed, true);
  push(w, num);
  push(w, Uint8Array.of(4));
  push(w, new TextEncoder().encode(timestamp));
  return w.finish();
}

function genesisCoinbase(scriptSig: Uint8Array, value: bigint): Transaction {
  const tx = new Transaction();
  tx.version = 1;
  tx.vin = [new TxIn(Outpoint.null(), scriptSig, 0xffffffff)];
  const spk = new BufferWriter(67);
  push(spk, GENESIS_PUBKEY);
  spk.u8(OP_CHECKSIG);
  tx.vout = [new TxOut(value, spk.finish())];
  return tx;
}

function nonceFromNumber(n: number): Uint8Array {
  const nonce = new Uint8Array(32);
  new DataView(nonce.buffer).setUint32(0, n, true);
  return nonce;
}

const KMD_GENESIS_SOLUTION =
  '000d5ba7cda5d473947263bf194285317179d2b0d307119c2e7cc4bd8ac456f0774bd52b0cd9249be9d40718b6397a4c7bbd8f2b3272fed2823cd2af4bd1632200ba4bf796727d6347b225f670f292343274cc35099466f5fb5f0cd1c105121b28213d15db2ed7bdba490b4cedc69742a57b7c25af24485e523aadbb77a0144fc76f79ef73bd8530d42b9f3b9bed1c135ad1fe152923fafe98f95f76f1615e64c4abb1137f4c31b218ba2782bc15534788dda2cc08a0ee2987c8b27ff41bd4e31cd5fb5643dfe862c9a02ca9f90c8c51a6671d681d04ad47e4b53b1518d4befafefe8cadfb912f3d03051b1efbf1dfe37b56e93a741d8dfd80d576ca250bee55fab1311fc7b3255977558cdda6f7d6f875306e43a14413facdaed2f46093e0ef1e8f8a963e1632dcbeebd8e49fd16b57d49b08f9762de89157c65233f60c8e38a1f503a48c555f8ec45dedecd574a37601323c27be597b956343107f8bd80f3a925afaf30811df83c402116bb9c1e5231c70fff899a7c82f73c902ba54da53cc459b7bf1113db65cc8f6914d3618560ea69abd13658fa7b6af92d374d6eca9529f8bd565166e4fcbf2a8dfb3c9b69539d4d2ee2e9321b85b331925df195915f2757637c2805e1d4131e1ad9ef9bc1bb1c732d8dba4738716d351ab30c996c8657bab39567ee3b29c6d054b711495c0d52e1cd5d8e55b4f0f0325b97369280755b46a02afd54be4ddd9f77c22272b8bbb17ff5118fedbae2564524e797bd28b5f74f7079d532ccc059807989f94d267f47e724b3f1ecfe00ec9e6541c961080d8891251b84b4480bc292f6a180bea089fef5bbda56e1e41390d7c0e85ba0ef530f7177413481a226465a36ef6afe1e2bca69d2078712b3912bba1a99b1fbff0d355d6ffe726d2bb6fbc103c4ac5756e5bee6e47e17424ebcbf1b63d8cb90ce2e40198b4f4198689daea254307e52a25562f4c1455340f0ffeb10f9d8e914775e37d0edca019fb1b9c6ef81255ed86bc51c5391e0591480f66e2d88c5f4fd7277697968656a9b113ab97f874fdd5f2465e5559533e01ba13ef4a8f7a21d02c30c8ded68e8c54603ab9c8084ef6d9eb4e92c75b078539e2ae786ebab6dab73a09e0aa9ac575bcefb29e930ae656e58bcb513f7e3c17e079dce4f05b5dbc18c2a872b22509740ebe6a3903e00ad1abc55076441862643f93606e3dc35e8d9f2caef3ee6be14d513b2e062b21d0061de3bd56881713a1a5c17f5ace05e1ec09da53f99442df175a49bd154aa96e4949decd52fed79ccf7ccbce32941419c314e374e4a396ac553e17b5340336a1a25c22f9e42a243ba5404450b650acfc826a6e432971ace776e15719515e1634ceb9a4a35061b668c74998d3dfb5827f6238ec015377e6f9c94f38108768cf6e5c8b132e0303fb5a200368f845ad9d46343035a6ff94031df8d8309415bb3f6cd5ede9c135fdabcc030599858d803c0f85be7661c88984d88faa3d26fb0e9aac0056a53f1b5d0baed713c853c4a2726869a0a124a8a5bbc0fc0ef80c8ae4cb53636aa02503b86a1eb9836fcc259823e2692d921d88e1ffc1e6cb2bde43939ceb3f32a611686f539f8f7c9f0bf00381f743607d40960f06d347d1cd8ac8a51969c25e37150efdf7aa4c2037a2fd0516fb444525ab157a0ed0a7412b2fa69b217fe397263153782c0f64351fbdf2678fa0dc8569912dcd8e3ccad38f34f23bbbce14c6a26ac24911b308b82c7e43062d180baeac4ba7153858365c72c63dcf5f6a5b08070b730adb017aeae925b7d0439979e2679f45ed2f25a7edcfd2fb77a8794630285ccb0a071f5cce410b46dbf9750b0354aae8b65574501cc69efb5b6a43444074fee116641bb29da56c2b4a7f456991fc92b2';

/** KMD mainnet's genesis block (Bitcoin's coinbase, Equihash (200,9)), also every asset chain's. */
export function kmdGenesisBlock(): Block {
  const coinbase = genesisCoinbase(
    genesisScriptSig(486604799, 'The Times 03/Jan/2009 Chancellor on brink of second bailout for banks'),
    50n * COIN,
  );
  const header = new BlockHeader();
  header.version = 1;
  header.time = 1231006505;
  header.bits = KOMODO_MINDIFF_NBITS;
  header.nonce = nonceFromNumber(0x0b);
  header.solution = fromHex(KMD_GENESIS_SOLUTION);
  const block = new Block(header, [coinbase]);
  block.updateMerkleRoot();
  return block;
}

/** komodod's regtest genesis (chainparams.cpp CRegTestParams: Zcash's, Equihash (48,5)). */
export function regtestGenesisBlock(): Block {
  const coinbase = genesisCoinbase(
    genesisScriptSig(520617983, 'Zcash0b9c4eef8b7cc417ee5001e3500984b6fea35683a7cac141a043c42064835d34'),
    0n,
  );
  const header = new BlockHeader();
  header.version = 4;
  header.time = 1296688602;
  header.bits = KOMODO_MINDIFF_NBITS;
  header.nonce = nonceFromNumber(9);
  header.solution = fromHex('01936b7db1eb4ac39f151b8704642d0a8bda13ec547d54cd5e43ba142fc6d8877cab07b3');
  const block = new Block(header, [coinbase]);
  block.updateMerkleRoot();
  return block;
}
