import { fromHex } from '../encoding/hex.js';
import { ccAddressOf, normalAddress } from './address.js';
import { EVAL_ASSETS, EVAL_AUCTION, EVAL_CHANNELS, EVAL_DICE, EVAL_FAUCET, EVAL_FSM, EVAL_GATEWAYS, EVAL_HEIR, EVAL_IMPORTGATEWAY, EVAL_LOTTO, EVAL_ORACLES, EVAL_PAYMENTS, EVAL_REWARDS, EVAL_TOKENS } from './eval-codes.js';

/** CC_BURNPUBKEY (CCinclude.h): not a curve point, so nobody can ever sign for it. */
export const CC_BURNPUBKEY = fromHex('02deaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddeaddead');

export interface ModuleGlobal {
  readonly module: string;
  readonly evalCode: number;
  /** The module's "unspendable" pubkey (CCcustom.cpp ...CChexstr). Its private key is public too; not kept here. */
  readonly pubkey: Uint8Array;
  /** CCcustom.cpp ...Normaladdr. */
  readonly normalAddressConstant: string;
  /**
   * CCcustom.cpp ...CCaddr. komodod derives the address it uses at run time (GetCCaddress); the
   * Lotto and FSM constants are stale and do not match it. Use globalCCAddress() for the real one.
   */
  readonly ccAddressConstant: string;
}

function g(module: string, evalCode: number, pubkey: string, normal: string, cc: string): ModuleGlobal {
  return Object.freeze({ module, evalCode, pubkey: fromHex(pubkey), normalAddressConstant: normal, ccAddressConstant: cc });
}

/** Module global keys (src/cc/CCcustom.cpp @0adeeab, lines 57-216). */
export const MODULE_GLOBALS: readonly ModuleGlobal[] = Object.freeze([
  g('Assets', EVAL_ASSETS, '02adf84e0e075cf90868bd4e3d34a03420e034719649c41f371fc70d8e33aa2702', 'RFYE2yL3KknWdHK6uNhvWacYsCUtwzjY3u', 'RGKRjeTBw4LYFotSDLT6RWzMHbhXri6BG6'),
  g('Faucet', EVAL_FAUCET, '03682b255c40d0cde8faee381a1a50bbb89980ff24539cb8518e294d3a63cefe12', 'RKQV4oYs4rvxAWx1J43VnT73rSTVtUeckk', 'R9zHrofhRbub7ER77B7NrVch3A63R39GuC'),
  g('Rewards', EVAL_REWARDS, '03da60379d924c2c30ac290d2a86c2ead128cb7bd571f69211cb95356e2dcc5eb9', 'RMgye9jeczNjQx9Uzq8no8pTLiCSwuHwkz', 'RTsRBYL1HSvMoE3qtBJkyiswdVaWkm8YTK'),
  g('Dice', EVAL_DICE, '039d966927cfdadab3ee6c56da63c21f17ea753dde4b3dfd41487103e24b27e94e', 'RLEe8f7Eg3TDuXii9BmNiiiaVGraHUt25c', 'REabWB7KjFN5C3LFMZ5odExHPenYzHLtVw'),
  g('Lotto', EVAL_LOTTO, '03f72d2c4db440df1e706502b09ca5fec73ffe954ea1883e4049e98da68690d98f', 'RLW6hhRqBZZMBndnyPv29Yg3krh6iBYCyg', 'RNXZxgyWSAE6XS3qGnTaf5dVNCxnYzhPrg'),
  g('FSM', EVAL_FSM, '039b52d294b413b07f3643c1a28c5467901a76562d8b39a785910ae0a0f3043810', 'RWSHRbxnJYLvDjpcQ2i8MekgP6h2ctTKaj', 'RUKTbLBeKgHkm3Ss4hKZP3ikuLW1xx7B2x'),
  g('Auction', EVAL_AUCTION, '037eefe050c14cb60ae65d5b2f69eaa1c9006826d729bc0957bdc3024e3ca1dbe6', 'RFtVDNmdTZBTNZdmFRbfBgJ6LitgTghikL', 'RL4YPX7JYG3FnvoPqWF2pn3nQknH5NWEwx'),
  g('Heir', EVAL_HEIR, '03c91bef3d7cc59c3a89286833a3446b29e52a5e773f738a1ad2b09785e5f4179e', 'RTPwUjKYECcGn6Y4KYChLhgaht1RSU4jwf', 'RDVHcSekmXgeYBqRupNTmqo3Rn8QRXNduy'),
  g('Channels', EVAL_CHANNELS, '035debdb19b1c98c615259339500511d6216a3ffbeb28ff5655a7ef5790a12ab0b', 'RQUuT8zmkvDfXqECH4m3VD3SsHZAfnoh1v', 'RQy3rwX8sP9oDm3c39vGKA6H315cgtPLfr'),
  g('Oracles', EVAL_ORACLES, '038c1d42db6a45a57eccb8981b078fb7857b9b496293fe299d2b8d120ac5b5691a', 'RHkFKzn1csxA3fWzAsxsLWohoCgBbirXb5', 'REt2C4ZMnX8YYX1DRpffNA4hECZTFm39e3'),
  g('Payments', EVAL_PAYMENTS, '0358f1764f82c63abc7c7455555fd1d3184905e30e819e97667e247e5792b46856', 'RHRX8RTMAh2STWe9DHqsvJbzS7ty6aZy3d', 'REpyKi7avsVduqZ3eimncK4uKqSArLTGGK'),
  g('Gateways', EVAL_GATEWAYS, '03ea9c062b9652d8eff34879b504eda0717895d27597aaeb60347d65eed96ccb40', 'RGJKV97ZN1wBfunuMt1tebiiHENNEq73Yh', 'RKWpoK6vTRtq5b9qrRBodLkCzeURHeEk33'),
  g('Tokens', EVAL_TOKENS, '03e6191c70c9c9a28f9fd87089b9488d0e6c02fb629df64979c9cdb6b2b4a68d95', 'RCNgAngYAdrfzujYyPgfbjCGNVQZzCgTad', 'RAMvUfoyURBRxAdVeTMHxn3giJZCFWeha2'),
  g('ImportGateway', EVAL_IMPORTGATEWAY, '0397231cfe04ea32d5fafb2206773ec9fba6e15c5a4e86064468bca195f7542714', 'RNFRho63Ddz1Rh2eGPETykrU4fA8r67S4Y', 'RXJT6CRAXHFuQ2UjqdxMj7EfrayF6UJpzZ'),
]);

export function moduleGlobal(evalCode: number): ModuleGlobal | undefined {
  return MODULE_GLOBALS.find((m) => m.evalCode === evalCode);
}

/** GetCCaddress(cp, pk) with the module's global pk: the address of MakeCCcond1(evalCode, globalPk). */
export function globalCCAddress(m: ModuleGlobal): string {
  return ccAddressOf(m.evalCode, m.pubkey);
}

/** The module's global normal address, derived from its pubkey. */
export function globalNormalAddress(m: ModuleGlobal): string {
  return normalAddress(m.pubkey);
}
