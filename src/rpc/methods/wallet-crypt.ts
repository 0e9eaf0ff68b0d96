import type { NodeServices } from '../../actors/protocol.js';
import { Secret } from '../../chain/crypto/secret.js';
import { RpcError, RPC_WALLET_ENCRYPTION_FAILED, RPC_WALLET_UNLOCK_NEEDED, RPC_WALLET_WRONG_ENC_STATE } from '../errors.js';
import { WALLET_UNLOCK_NEEDED } from '../../actors/wallet/protocol.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getInt64, getStr } from '../params.js';
import { helpExampleCli, helpExampleRpc, type HelpEnv, type RpcContext, type RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';

/**
 * Wallet encryption (rpcwallet.cpp at 0adeeab): encryptwallet, walletpassphrase,
 * walletpassphrasechange, walletlock. Passphrases go to the wallet actor as Secret (shown as [secret]
 * wherever a message is rendered); -inspect redacts these params before recording a call
 * (node/inspect-redact.ts), and the RPC layer logs no params.
 *
 * komodod answers fHelp without the help text in one wallet state, so `help` lists the methods of the
 * other: walletpassphrase, walletpassphrasechange and walletlock once the wallet is encrypted,
 * encryptwallet before.
 */
export function walletCryptMethods(node: NodeServices): RpcMethod[] {
  const crypted = (env: HelpEnv) => env.walletCrypted?.() === true;
  return [
    {
      name: 'encryptwallet',
      category: 'wallet',
      help: (env) => encryptwalletHelp(env, encryptionEnabledByConfig(node)),
      inHelp: (env) => !crypted(env),
      handler: (params, ctx) => encryptwallet(node, params, ctx),
    },
    { name: 'walletpassphrase', category: 'wallet', help: walletpassphraseHelp, inHelp: crypted, handler: (params, ctx) => walletpassphrase(node, params, ctx) },
    { name: 'walletpassphrasechange', category: 'wallet', help: walletpassphrasechangeHelp, inHelp: crypted, handler: (params, ctx) => walletpassphrasechange(node, params, ctx) },
    { name: 'walletlock', category: 'wallet', help: walletlockHelp, inHelp: crypted, handler: (params, ctx) => walletlock(node, params, ctx) },
  ];
}

/** KOMODO_SAPLING_DEADLINE (komodo_defs.h): from this tip time komodo_acpublic is 1 for ZEX. */
const KOMODO_SAPLING_DEADLINE = 1550188800;

/**
 * GetBoolArg("-developerencryptwallet", komodo_acpublic(0) || KMD) under fExperimentalMode, from the
 * flags alone: -ac_public chains default to on. (ZEX's own rule needs the tip: see encryptionEnabled.)
 */
function encryptionEnabledByConfig(node: NodeServices): boolean {
  const { config } = node;
  return config.experimentalfeatures && (config.developerencryptwallet ?? config.chain.ac.public !== 0);
}

/** encryptwallet's fEnableWalletEncryption, komodo_acpublic's ZEX rule included (ZEX turns public at its Sapling deadline). */
async function encryptionEnabled(node: NodeServices): Promise<boolean> {
  const { config } = node;
  if (!config.experimentalfeatures) return false;
  if (config.developerencryptwallet !== null) return config.developerencryptwallet;
  if (config.chain.ac.public !== 0) return true;
  if (config.chain.name !== 'ZEX') return false;
  return (await ask(node.chainStore, { op: 'tip' })).time >= KOMODO_SAPLING_DEADLINE;
}

/**
 * SecureString = params[i].get_str().c_str(): komodod's passphrase ends at the first NUL character,
 * as bytes (UTF-8) for the KDF.
 */
function passphraseOf(v: JsonValue): Uint8Array {
  const s = getStr(v);
  const nul = s.indexOf('\0');
  return new TextEncoder().encode(nul < 0 ? s : s.slice(0, nul));
}

async function encryptwallet(node: NodeServices, params: JsonValue[], ctx: RpcContext): Promise<JsonOut> {
  const enabled = await encryptionEnabled(node);
  const state = await ask(node.wallet, { op: 'cryptState' });
  if (!state.crypted && params.length !== 1) throw new Error(encryptwalletHelp(ctx.env, enabled));
  if (!enabled) throw new RpcError(RPC_WALLET_ENCRYPTION_FAILED, 'Error: wallet encryption is disabled.');
  if (state.crypted) throw new RpcError(RPC_WALLET_WRONG_ENC_STATE, 'Error: running with an encrypted wallet, but encryptwallet was called.');
  const passphrase = passphraseOf(params[0]!);
  if (passphrase.length < 1) throw new Error('encryptwallet <passphrase>\nEncrypts the wallet with <passphrase>.');
  await ask(node.wallet, { op: 'encryptWallet', passphrase: new Secret(passphrase) });
  // StartShutdown: the answer goes out first, then the node stops (the file holds no plain key any more).
  setImmediate(() => node.requestStop());
  return 'wallet encrypted; Komodo server stopping, restart to run with encrypted wallet. The keypool has been flushed, you need to make a new backup.';
}

async function walletpassphrase(node: NodeServices, params: JsonValue[], ctx: RpcContext): Promise<JsonOut> {
  const state = await ask(node.wallet, { op: 'cryptState' });
  if (state.crypted && params.length !== 2) throw new Error(walletpassphraseHelp(ctx.env));
  if (!state.crypted) throw new RpcError(RPC_WALLET_WRONG_ENC_STATE, 'Error: running with an unencrypted wallet, but walletpassphrase was called.');
  const passphrase = passphraseOf(params[0]!);
  if (passphrase.length === 0) throw new Error('walletpassphrase <passphrase> <timeout>\nStores the wallet decryption key in memory for <timeout> seconds.');
  // komodod reads the timeout after unlocking, so a timeout that is not an integer fails the call and
  // leaves its wallet unlocked with no relock; acnode reads it first: the same error, the wallet as it was.
  const timeout = Number(getInt64(params[1]!));
  await ask(node.wallet, { op: 'walletPassphrase', passphrase: new Secret(passphrase), timeout });
  return null;
}

async function walletpassphrasechange(node: NodeServices, params: JsonValue[], ctx: RpcContext): Promise<JsonOut> {
  const state = await ask(node.wallet, { op: 'cryptState' });
  if (state.crypted && params.length !== 2) throw new Error(walletpassphrasechangeHelp(ctx.env));
  if (!state.crypted) throw new RpcError(RPC_WALLET_WRONG_ENC_STATE, 'Error: running with an unencrypted wallet, but walletpassphrasechange was called.');
  const oldPassphrase = passphraseOf(params[0]!);
  const newPassphrase = passphraseOf(params[1]!);
  if (oldPassphrase.length < 1 || newPassphrase.length < 1)
    throw new Error('walletpassphrasechange <oldpassphrase> <newpassphrase>\nChanges the wallet passphrase from <oldpassphrase> to <newpassphrase>.');
  await ask(node.wallet, { op: 'walletPassphraseChange', oldPassphrase: new Secret(oldPassphrase), newPassphrase: new Secret(newPassphrase) });
  return null;
}

async function walletlock(node: NodeServices, params: JsonValue[], ctx: RpcContext): Promise<JsonOut> {
  const state = await ask(node.wallet, { op: 'cryptState' });
  if (state.crypted && params.length !== 0) throw new Error(walletlockHelp(ctx.env));
  if (!state.crypted) throw new RpcError(RPC_WALLET_WRONG_ENC_STATE, 'Error: running with an unencrypted wallet, but walletlock was called.');
  await ask(node.wallet, { op: 'walletLock' });
  return null;
}

// ---- help texts (rpcwallet.cpp, byte for byte but for the daemon and client names) --------------

/**
 * experimentalDisabledHelpMsg (rpc/server.cpp): ticker is chainName.symbol(), the -ac_name of an
 * asset chain; the daemon is named acnoded where komodod names itself.
 */
function experimentalDisabledHelpMsg(env: HelpEnv, rpc: string, enableArg: string): string {
  return (
    `\nWARNING: ${rpc} is disabled.\n` +
    `To enable it, restart acnoded with the -experimentalfeatures and\n` +
    `-${enableArg} commandline options, or add these two lines\n` +
    `to the ${env.chainName}.conf file:\n\n` +
    'experimentalfeatures=1\n' +
    `${enableArg}=1\n`
  );
}

export const encryptwalletHelp = (env: HelpEnv, enabled: boolean): string =>
  'encryptwallet "passphrase"\n' +
  (enabled ? '' : experimentalDisabledHelpMsg(env, 'encryptwallet', 'developerencryptwallet')) +
  "\nEncrypts the wallet with 'passphrase'. This is for first time encryption.\n" +
  'After this, any calls that interact with private keys such as sending or signing \n' +
  'will require the passphrase to be set prior the making these calls.\n' +
  'Use the walletpassphrase call for this, and then walletlock call.\n' +
  'If the wallet is already encrypted, use the walletpassphrasechange call.\n' +
  'Note that this will shutdown the server.\n' +
  '\nArguments:\n' +
  '1. "passphrase"    (string) The pass phrase to encrypt the wallet with. It must be at least 1 character, but should be long.\n' +
  '\nExamples:\n' +
  '\nEncrypt you wallet\n' +
  helpExampleCli(env, 'encryptwallet', '"my pass phrase"') +
  '\nNow set the passphrase to use the wallet, such as for signing or sending ' +
  env.chainName +
  '\n' +
  helpExampleCli(env, 'walletpassphrase', '"my pass phrase"') +
  '\nNow we can so something like sign\n' +
  helpExampleCli(env, 'signmessage', `"${env.chainName}_address" "test message"`) +
  '\nNow lock the wallet again by removing the passphrase\n' +
  helpExampleCli(env, 'walletlock', '') +
  '\nAs a json rpc call\n' +
  helpExampleRpc(env, 'encryptwallet', '"my pass phrase"');

export const walletpassphraseHelp = (env: HelpEnv): string =>
  'walletpassphrase "passphrase" timeout\n' +
  "\nStores the wallet decryption key in memory for 'timeout' seconds.\n" +
  'This is needed prior to performing transactions related to private keys such as sending ' +
  env.chainName +
  '\n' +
  '\nArguments:\n' +
  '1. "passphrase"     (string, required) The wallet passphrase\n' +
  '2. timeout            (numeric, required) The time to keep the decryption key in seconds.\n' +
  '\nNote:\n' +
  'Issuing the walletpassphrase command while the wallet is already unlocked will set a new unlock\n' +
  'time that overrides the old one.\n' +
  '\nExamples:\n' +
  '\nunlock the wallet for 60 seconds\n' +
  helpExampleCli(env, 'walletpassphrase', '"my pass phrase" 60') +
  '\nLock the wallet again (before 60 seconds)\n' +
  helpExampleCli(env, 'walletlock', '') +
  '\nAs json rpc call\n' +
  helpExampleRpc(env, 'walletpassphrase', '"my pass phrase", 60');

export const walletpassphrasechangeHelp = (env: HelpEnv): string =>
  'walletpassphrasechange "oldpassphrase" "newpassphrase"\n' +
  "\nChanges the wallet passphrase from 'oldpassphrase' to 'newpassphrase'.\n" +
  '\nArguments:\n' +
  '1. "oldpassphrase"      (string) The current passphrase\n' +
  '2. "newpassphrase"      (string) The new passphrase\n' +
  '\nExamples:\n' +
  helpExampleCli(env, 'walletpassphrasechange', '"old one" "new one"') +
  helpExampleRpc(env, 'walletpassphrasechange', '"old one", "new one"');

export const walletlockHelp = (env: HelpEnv): string =>
  'walletlock\n' +
  '\nRemoves the wallet encryption key from memory, locking the wallet.\n' +
  'After calling this method, you will need to call walletpassphrase again\n' +
  'before being able to call any methods which require the wallet to be unlocked.\n' +
  '\nExamples:\n' +
  '\nSet the passphrase for 2 minutes to perform a transaction\n' +
  helpExampleCli(env, 'walletpassphrase', '"my pass phrase" 120') +
  '\nPerform a send (requires passphrase set)\n' +
  helpExampleCli(env, 'sendtoaddress', '"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV" 1.0') +
  '\nClear the passphrase since we are done before 2 minutes is up\n' +
  helpExampleCli(env, 'walletlock', '') +
  '\nAs json rpc call\n' +
  helpExampleRpc(env, 'walletlock', '');

/** EnsureWalletIsUnlocked: -13 while the wallet is encrypted and locked (the first check of the key-using methods). */
export async function ensureWalletIsUnlocked(node: NodeServices): Promise<void> {
  if ((await ask(node.wallet, { op: 'cryptState' })).locked) throw new RpcError(RPC_WALLET_UNLOCK_NEEDED, WALLET_UNLOCK_NEEDED);
}
