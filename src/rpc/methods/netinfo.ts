import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { NodeServices } from '../../actors/protocol.js';
// The version and subversion the node announces to peers, as getnetworkinfo prints them.
import { CLIENT_VERSION, SUBVERSION } from '../../chain/p2p/version.js';
import { RpcError, RPC_CLIENT_NODE_NOT_ADDED } from '../errors.js';
import type { JsonOut } from '../json-value.js';
import { getBool, getStr } from '../params.js';
import { splitHostPort } from '../server.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';
import { askRpc } from '../ask.js';

/** deprecation.h: the height komodod 0.9.0 stops at on main-net chains. */
const DEPRECATION_HEIGHT = 4820333;

/** An IP as CNetAddr::ToStringIP prints it (IPv6 in its compressed form). */
function canonicalIp(ip: string): string {
  return isIP(ip) === 6 ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** CService::ToString: ip:port, or [ipv6]:port. */
function serviceText(ip: string, port: number): string {
  const c = canonicalIp(ip);
  return c.includes(':') ? `[${c}]:${port}` : `${c}:${port}`;
}

/**
 * Lookup(name, defaultPort, fNameLookup): the services a node text names, an IP literal as it is,
 * a host name through the resolver; null when it does not resolve.
 */
async function resolveServices(text: string, defaultPort: number): Promise<string[] | null> {
  const { host, port } = splitHostPort(text, defaultPort);
  if (isIP(host)) return [serviceText(host, port)];
  try {
    const found = await lookup(host, { all: true });
    return found.length > 0 ? found.map((a) => serviceText(a.address, port)) : null;
  } catch {
    return null;
  }
}

/** The `network` methods over the p2p actor's added-node list and byte counters (rpc/net.cpp). */
export function netInfoMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getnettotals',
      category: 'network',
      maxArgs: 0,
      help: (env) =>
        'getnettotals\n' +
        '\nReturns information about network traffic, including bytes in, bytes out,\n' +
        'and current time.\n' +
        '\nResult:\n' +
        '{\n' +
        '  "totalbytesrecv": n,   (numeric) Total bytes received\n' +
        '  "totalbytessent": n,   (numeric) Total bytes sent\n' +
        '  "timemillis": t        (numeric) Total cpu time\n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getnettotals', '') +
        helpExampleRpc(env, 'getnettotals', ''),
      handler: async () => {
        const t = await askRpc(node.p2p, { op: 'nettotals' });
        return { totalbytesrecv: t.recv, totalbytessent: t.sent, timemillis: Date.now() };
      },
    },
    {
      name: 'getaddednodeinfo',
      category: 'network',
      minArgs: 1,
      maxArgs: 2,
      help: (env) =>
        'getaddednodeinfo dns ( "node" )\n' +
        '\nReturns information about the given added node, or all added nodes\n' +
        '(note that onetry addnodes are not listed here)\n' +
        'If dns is false, only a list of added nodes will be provided,\n' +
        'otherwise connected information will also be available.\n' +
        '\nArguments:\n' +
        '1. dns        (boolean, required) If false, only a list of added nodes will be provided, otherwise connected information will also be available.\n' +
        '2. "node"   (string, optional) If provided, return information about this specific node, otherwise all nodes are returned.\n' +
        '\nResult:\n' +
        '[\n' +
        '  {\n' +
        '    "addednode" : "192.168.0.201",   (string) The node ip address\n' +
        '    "connected" : true|false,          (boolean) If connected\n' +
        '    "addresses" : [\n' +
        '       {\n' +
        '         "address" : "192.168.0.201:8233",  (string) The Komodo server host and port\n' +
        '         "connected" : "outbound"           (string) connection, inbound or outbound\n' +
        '       }\n' +
        '       ,...\n' +
        '     ]\n' +
        '  }\n' +
        '  ,...\n' +
        ']\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getaddednodeinfo', 'true') +
        helpExampleCli(env, 'getaddednodeinfo', 'true "192.168.0.201"') +
        helpExampleRpc(env, 'getaddednodeinfo', 'true, "192.168.0.201"'),
      handler: async (params) => {
        const dns = getBool(params[0]!);
        const wanted = params.length > 1 ? getStr(params[1]!) : null;
        const added = await askRpc(node.p2p, { op: 'addednodes' });
        const listed = wanted === null ? added : added.filter((a) => a === wanted).slice(0, 1);
        if (wanted !== null && listed.length === 0) throw new RpcError(RPC_CLIENT_NODE_NOT_ADDED, 'Error: Node has not been added.');
        if (!dns) return listed.map((a) => ({ addednode: a }));
        const port = node.baseParams.p2pPort;
        const peers = await askRpc(node.p2p, { op: 'peerinfo' });
        // Each peer's address as a service (a peer dialled by name is resolved as komodod resolved it).
        const peerServices = await Promise.all(peers.map(async (p) => ({ inbound: p.inbound, services: (await resolveServices(p.addr, port)) ?? [] })));
        const out: JsonOut[] = [];
        for (const a of listed) {
          const services = await resolveServices(a, port);
          // komodod builds an entry for a name that does not resolve but never adds it to the result.
          if (!services) continue;
          let connected = false;
          const addresses = services.map((s) => {
            const peer = peerServices.find((p) => p.services.includes(s));
            if (peer) connected = true;
            return { address: s, connected: peer ? (peer.inbound ? 'inbound' : 'outbound') : 'false' };
          });
          out.push({ addednode: a, connected, addresses });
        }
        return out;
      },
    },
    {
      name: 'getdeprecationinfo',
      category: 'network',
      // komodod answers only on main-net (not -regtest): elsewhere the call fails with its help text.
      checkArgs: (params) => params.length === 0 && !node.config.chain.regtest,
      help: (env) =>
        'getdeprecationinfo\n' +
        'Returns an object containing current version and deprecation block height. Applicable only on mainnet.\n' +
        '\nResult:\n' +
        '{\n' +
        '  "version": xxxxx,                      (numeric) the server version\n' +
        '  "subversion": "/MagicBean:x.y.z[-v]/",     (string) the server subversion string\n' +
        '  "deprecationheight": xxxxx,            (numeric) the block height at which this version will deprecate and shut down\n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getdeprecationinfo', '') +
        helpExampleRpc(env, 'getdeprecationinfo', ''),
      handler: () => ({ version: CLIENT_VERSION, subversion: SUBVERSION, deprecationheight: DEPRECATION_HEIGHT }),
    },
  ];
}
