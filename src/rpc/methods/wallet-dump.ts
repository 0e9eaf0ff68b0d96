import { existsSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { resolve, join } from 'node:path';
import type { NodeServices } from '../../actors/protocol.js';
import { Secret } from '../../chain/crypto/secret.js';
import { hash160, sha256 } from '../../chain/crypto/hash.js';
import { publicKeyFromPrivate } from '../../chain/crypto/secp256k1.js';
import { toHex } from '../../chain/encoding/hex.js';
import { decodeWIF, encodeWIF, encodeAddress, PUBKEY_ADDRESS } from '../../chain/address/index.js';
import { RpcError, RPC_INVALID_PARAMETER, RPC_WALLET_ERROR, RPC_INTERNAL_ERROR } from '../errors.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getStr } from '../params.js';
import type { RpcMethod } from '../table.js';
import { askRpc as ask } from '../ask.js';
import { ensureWalletIsUnlocked } from './wallet-crypt.js';
import * as H from './wallet-help.js';

/** Wallet backups and dumps (rpcwallet.cpp backupwallet, rpcdump.cpp dumpwallet/importwallet): files inside -exportdir, komodod's dump format. */
/** EncodeDumpTime: %Y-%m-%dT%H:%M:%SZ. */
export function encodeDumpTime(t: number): string {
  return new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** DecodeDumpTime: the same format, 0 when it does not parse. */
export function decodeDumpTime(s: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z/.exec(s);
  if (!m) return 0;
  return Math.floor(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!) / 1000);
}

/** EncodeDumpString: bytes <= 32, >= 128 and '%' as %hh. */
export function encodeDumpString(s: string): string {
  let out = '';
  for (const c of Buffer.from(s, 'utf8')) out += c <= 32 || c >= 128 || c === 0x25 ? `%${c.toString(16).padStart(2, '0')}` : String.fromCharCode(c);
  return out;
}

/** DecodeDumpString: komodod's %hh decoder (its digit arithmetic, any character accepted). */
export function decodeDumpString(s: string): string {
  const bytes: number[] = [];
  const b = Buffer.from(s, 'latin1');
  const nib = (c: number) => (((c << 24) >> 24 >> 6) * 9 + ((c - 48) & 15)) & 0xff;
  for (let pos = 0; pos < b.length; pos++) {
    let c = b[pos]!;
    if (c === 0x25 && pos + 2 < b.length) {
      c = ((nib(b[pos + 1]!) << 4) | nib(b[pos + 2]!)) & 0xff;
      pos += 2;
    }
    bytes.push(c);
  }
  return Buffer.from(bytes).toString('utf8');
}

/** SanitizeFilename: alphanumeric characters only. */
function sanitizeFilename(s: string): string {
  return s.replace(/[^A-Za-z0-9]/g, '');
}

/** GetExportDir: -exportdir made absolute and created; '' when unset. */
function exportDir(node: NodeServices): string {
  const dir = node.config.flags.get('exportdir');
  if (dir === undefined) return '';
  const path = resolve(dir);
  if (existsSync(path) && !statSync(path).isDirectory()) throw new RpcError(RPC_INTERNAL_ERROR, `The -exportdir '${path}' already exists and is not a directory`);
  if (!existsSync(path)) mkdirSync(path, { recursive: true });
  return path;
}

/**
 * backupwallet/dumpwallet's target: the file name must already be alphanumeric, inside -exportdir
 * (`unset` is the call's own message when -exportdir is not set).
 */
function exportPath(node: NodeServices, param: JsonValue, unset: string): string {
  const dir = exportDir(node);
  if (dir === '') throw new RpcError(RPC_WALLET_ERROR, unset);
  const name = getStr(param);
  const clean = sanitizeFilename(name);
  if (clean !== name) throw new RpcError(RPC_WALLET_ERROR, `Filename is invalid as only alphanumeric characters are allowed.  Try '${clean}' instead.`);
  return join(dir, clean);
}

/** Backups and dumps inside -exportdir, dump import, and convertpassphrase (rpcwallet.cpp, rpcdump.cpp). */
export function backupMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'convertpassphrase',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.convertpassphraseHelp,
      handler: (params) => convertpassphrase(getStr(params[0]!)),
    },
    {
      name: 'backupwallet',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.backupwalletHelp,
      handler: (params) => backupwallet(node, params),
    },
    {
      name: 'dumpwallet',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.dumpwalletHelp,
      handler: (params) => dumpwallet(node, params),
    },
    {
      name: 'importwallet',
      category: 'wallet',
      minArgs: 1,
      maxArgs: 1,
      help: H.importwalletHelp,
      handler: (params) => importwallet(node, params),
    },
  ];
}

async function backupwallet(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const path = exportPath(node, params[0]!, 'Cannot backup wallet until the -exportdir option has been set');
  try {
    await ask(node.wallet, { op: 'backup', path });
  } catch {
    throw new RpcError(RPC_WALLET_ERROR, 'Error: Wallet backup failed!');
  }
  return path;
}

async function dumpwallet(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  await ensureWalletIsUnlocked(node);
  const path = exportPath(node, params[0]!, 'Cannot export wallet until the komodod -exportdir option has been set');
  if (existsSync(path)) throw new RpcError(RPC_INVALID_PARAMETER, `Cannot overwrite existing file ${path}`);
  const keys = await ask(node.wallet, { op: 'allKeys' });
  const tip = await ask(node.chainStore, { op: 'tip' });
  let text = `# Wallet dump created by acnode\n`;
  text += `# * Created on ${encodeDumpTime(Math.floor(Date.now() / 1000))}\n`;
  text += `# * Best block at time of backup was ${tip.height} (${tip.hash}),\n`;
  text += `#   mined on ${encodeDumpTime(tip.time)}\n`;
  text += '\n';
  const sorted = keys.slice().sort((a, b) => a.time - b.time);
  for (const k of sorted) {
    const addr = encodeAddress(PUBKEY_ADDRESS, hash160(k.pubkey));
    const wif = encodeWIF(k.secret.bytes, k.compressed);
    const when = encodeDumpTime(k.time);
    if (k.account !== undefined) text += `${wif} ${when} label=${encodeDumpString(k.account)} # addr=${addr}\n`;
    else if (k.origin === 'pool') text += `${wif} ${when} reserve=1 # addr=${addr}\n`;
    else text += `${wif} ${when} change=1 # addr=${addr}\n`;
  }
  text += '\n';
  text += '# End of dump\n';
  writeFileSync(path, text, { mode: 0o600 });
  return path;
}

async function importwallet(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  await ensureWalletIsUnlocked(node);
  const path = getStr(params[0]!);
  let text: string;
  try {
    text = readFileSync(path, 'latin1');
  } catch {
    throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot open wallet dump file');
  }
  const entries: { secret: Secret; compressed: boolean; time: number; label?: string }[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line[0] === '#') continue;
    const v = line.split(' ');
    if (v.length < 2) continue;
    const key = decodeWIF(v[0]!);
    if (!key) continue;
    let label: string | undefined = '';
    let fLabel = true;
    for (let i = 2; i < v.length; i++) {
      if (v[i]!.startsWith('#')) break;
      if (v[i] === 'change=1' || v[i] === 'reserve=1') fLabel = false;
      if (v[i]!.startsWith('label=')) {
        label = decodeDumpString(v[i]!.slice(6));
        fLabel = true;
      }
    }
    entries.push({ secret: new Secret(key.key), compressed: key.compressed, time: decodeDumpTime(v[1]!), ...(fLabel ? { label } : {}) });
  }
  await ask(node.wallet, { op: 'importKeys', entries, rescan: true });
  return null;
}

/**
 * convertpassphrase (rpcdump.cpp:92): the key an Agama passphrase stands for, SHA-256 of its bytes
 * clamped as komodod clamps it (rpcdump.cpp:124-126: first byte &= 0xf8, last &= 0x7f then |= 0x40),
 * compressed; or, when the text is already a WIF of this chain (DecodeSecret, rpcdump.cpp:117), that key, the text
 * echoed as "wif" as given. komodod asks for no wallet, locked or not (it only computes), and nor
 * does acnode; the params never reach -inspect (inspect-redact.ts) and the result is never recorded.
 */
export function convertpassphrase(text: string): JsonOut {
  const wif = decodeWIF(text);
  let key: Uint8Array;
  let compressed = true;
  if (wif) {
    key = wif.key;
    compressed = wif.compressed;
  } else {
    key = sha256(Buffer.from(text, 'utf8'));
    key[0] = key[0]! & 0xf8;
    key[31] = (key[31]! & 0x7f) | 0x40;
  }
  const pubkey = publicKeyFromPrivate(key, compressed);
  return {
    agamapassphrase: text,
    address: encodeAddress(PUBKEY_ADDRESS, hash160(pubkey)),
    pubkey: toHex(pubkey),
    privkey: toHex(key),
    wif: wif ? text : encodeWIF(key, true),
  };
}
