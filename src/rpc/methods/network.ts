import type { NodeServices } from '../../actors/protocol.js';
import { Amount } from '../../chain/encoding/coin-amount.js';
import { PROTOCOL_VERSION } from '../../chain/p2p/messages.js';
import { CLIENT_VERSION, SUBVERSION } from '../../chain/p2p/version.js';
import type { JsonOut, JsonValue } from '../json-value.js';
import { getInt64, getStr } from '../params.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from '../table.js';
import { askRpc } from '../ask.js';
import { DEFAULT_MIN_RELAY_TX_FEE as MIN_RELAY_TX_FEE } from '../../chain/validation/policy.js';

/** The `network` category (rpc/net.cpp): peers, connections, bans (the p2p actor's failures keep their komodod codes: -23, -24, -29, -1). */
export function networkMethods(node: NodeServices): RpcMethod[] {
  return [...peerMethods(node), ...nodeMethods(node), ...infoMethods(node), ...banMethods(node)];
}

/** Peers (rpc/net.cpp): the connection count, ping, getpeerinfo. */
function peerMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getconnectioncount',
      category: 'network',
      minArgs: 0,
      maxArgs: 0,
      help: (env) =>
        'getconnectioncount\n' +
        '\nReturns the number of connections to other nodes.\n' +
        // komodod's help text says "bResult" here.
        '\nbResult:\n' +
        'n          (numeric) The connection count\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getconnectioncount', '') +
        helpExampleRpc(env, 'getconnectioncount', ''),
      handler: async () => askRpc(node.p2p, { op: 'connectioncount' }),
    },
    {
      name: 'ping',
      category: 'network',
      minArgs: 0,
      maxArgs: 0,
      help: (env) =>
        'ping\n' +
        '\nRequests that a ping be sent to all other nodes, to measure ping time.\n' +
        'Results provided in getpeerinfo, pingtime and pingwait fields are decimal seconds.\n' +
        'Ping command is handled in queue with all other commands, so it measures processing backlog, not just network ping.\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'ping', '') +
        helpExampleRpc(env, 'ping', ''),
      handler: () => ping(node),
    },
    {
      name: 'getpeerinfo',
      category: 'network',
      minArgs: 0,
      maxArgs: 0,
      help: (env) =>
        'getpeerinfo\n' +
        '\nReturns data about each connected network node as a json array of objects.\n' +
        '\nbResult:\n' +
        '[\n' +
        '  {\n' +
        '    "id": n,                   (numeric) Peer index\n' +
        '    "addr":"host:port",      (string) The ip address and port of the peer\n' +
        '    "addrlocal":"ip:port",   (string) local address\n' +
        '    "services":"xxxxxxxxxxxxxxxx",   (string) The services offered\n' +
        '    "lastsend": ttt,           (numeric) The time in seconds since epoch (Jan 1 1970 GMT) of the last send\n' +
        '    "lastrecv": ttt,           (numeric) The time in seconds since epoch (Jan 1 1970 GMT) of the last receive\n' +
        '    "bytessent": n,            (numeric) The total bytes sent\n' +
        '    "bytesrecv": n,            (numeric) The total bytes received\n' +
        '    "conntime": ttt,           (numeric) The connection time in seconds since epoch (Jan 1 1970 GMT)\n' +
        '  "timeoffset": xxxxx,         (numeric) the time offset (deprecated; always 0)\n' +
        '    "pingtime": n,             (numeric) ping time\n' +
        '    "pingwait": n,             (numeric) ping wait\n' +
        '    "version": v,              (numeric) The peer version, such as 170002\n' +
        '    "subver": "/MagicBean:x.y.z[-v]/",  (string) The string version\n' +
        '    "inbound": true|false,     (boolean) Inbound (true) or Outbound (false)\n' +
        '    "startingheight": n,       (numeric) The starting height (block) of the peer\n' +
        '    "banscore": n,             (numeric) The ban score\n' +
        '    "synced_headers": n,       (numeric) The last header we have in common with this peer\n' +
        '    "synced_blocks": n,        (numeric) The last block we have in common with this peer\n' +
        '    "inflight": [\n' +
        "       n,                        (numeric) The heights of blocks we're currently asking from this peer\n" +
        '       ...\n' +
        '    ]\n' +
        '  }\n' +
        '  ,...\n' +
        ']\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getpeerinfo', '') +
        helpExampleRpc(env, 'getpeerinfo', ''),
      handler: async () => askRpc(node.p2p, { op: 'peerinfo' }),
    },
  ];
}

/** Connections opened and closed by hand (rpc/net.cpp): addnode, disconnectnode. */
function nodeMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'addnode',
      category: 'network',
      checkArgs: (params) => {
        if (params.length !== 2) return false;
        const cmd = params[1];
        // komodod reads params[1].get_str() first: a non-string fails with get_str's error (in the handler).
        return typeof cmd !== 'string' || cmd === 'onetry' || cmd === 'add' || cmd === 'remove';
      },
      help: (env) =>
        'addnode "node" "add|remove|onetry"\n' +
        '\nAttempts add or remove a node from the addnode list.\n' +
        'Or try a connection to a node once.\n' +
        '\nArguments:\n' +
        '1. "node"     (string, required) The node (see getpeerinfo for nodes)\n' +
        "2. \"command\"  (string, required) 'add' to add a node to the list, 'remove' to remove a node from the list, 'onetry' to try a connection to the node once\n" +
        '\nExamples:\n' +
        helpExampleCli(env, 'addnode', '"192.168.0.6:8233" "onetry"') +
        helpExampleRpc(env, 'addnode', '"192.168.0.6:8233", "onetry"'),
      handler: (params) => addnode(node, params),
    },
    {
      name: 'disconnectnode',
      category: 'network',
      minArgs: 1,
      maxArgs: 1,
      help: (env) =>
        'disconnectnode "node" \n' +
        '\nImmediately disconnects from the specified node.\n' +
        '\nArguments:\n' +
        '1. "node"     (string, required) The node (see getpeerinfo for nodes)\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'disconnectnode', '"192.168.0.6:8233"') +
        helpExampleRpc(env, 'disconnectnode', '"192.168.0.6:8233"'),
      handler: (params) => disconnectnode(node, params),
    },
  ];
}

/** getnetworkinfo (rpc/net.cpp). */
function infoMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'getnetworkinfo',
      category: 'network',
      minArgs: 0,
      maxArgs: 0,
      help: (env) =>
        'getnetworkinfo\n' +
        'Returns an object containing various state info regarding P2P networking.\n' +
        '\nResult:\n' +
        '{\n' +
        '  "version": xxxxx,                      (numeric) the server version\n' +
        '  "subversion": "/MagicBean:x.y.z[-v]/",     (string) the server subversion string\n' +
        '  "protocolversion": xxxxx,              (numeric) the protocol version\n' +
        '  "localservices": "xxxxxxxxxxxxxxxx", (string) the services we offer to the network\n' +
        '  "timeoffset": xxxxx,                   (numeric) the time offset\n' +
        '  "connections": xxxxx,                  (numeric) the number of connections\n' +
        '  "networks": [                          (array) information per network\n' +
        '  {\n' +
        '    "name": "xxx",                     (string) network (ipv4, ipv6 or onion)\n' +
        '    "limited": true|false,               (boolean) is the network limited using -onlynet?\n' +
        '    "reachable": true|false,             (boolean) is the network reachable?\n' +
        '    "proxy": "host:port"               (string) the proxy that is used for this network, or empty if none\n' +
        '  }\n' +
        '  ,...\n' +
        '  ],\n' +
        // CURRENCY_UNIT is "KMD" in komodod (amount.cpp:25), on every chain.
        '  "relayfee": x.xxxxxxxx,                (numeric) minimum relay fee for non-free transactions in KMD/kB\n' +
        '  "localaddresses": [                    (array) list of local addresses\n' +
        '  {\n' +
        '    "address": "xxxx",                 (string) network address\n' +
        '    "port": xxx,                         (numeric) network port\n' +
        '    "score": xxx                         (numeric) relative score\n' +
        '  }\n' +
        '  ,...\n' +
        '  ]\n' +
        '  "warnings": "..."                    (string) any network warnings (such as alert messages) \n' +
        '}\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'getnetworkinfo', '') +
        helpExampleRpc(env, 'getnetworkinfo', ''),
      handler: () => getnetworkinfo(node),
    },
  ];
}

/** Bans (rpc/net.cpp): setban, listbanned, clearbanned. */
function banMethods(node: NodeServices): RpcMethod[] {
  return [
    {
      name: 'setban',
      category: 'network',
      checkArgs: (params) => {
        if (params.length < 2) return false;
        const cmd = params[1];
        return typeof cmd !== 'string' || cmd === 'add' || cmd === 'remove';
      },
      help: (env) =>
        'setban "ip(/netmask)" "add|remove" (bantime) (absolute)\n' +
        '\nAttempts add or remove a IP/Subnet from the banned list.\n' +
        '\nArguments:\n' +
        '1. "ip(/netmask)" (string, required) The IP/Subnet (see getpeerinfo for nodes ip) with a optional netmask (default is /32 = single ip)\n' +
        "2. \"command\"      (string, required) 'add' to add a IP/Subnet to the list, 'remove' to remove a IP/Subnet from the list\n" +
        '3. "bantime"      (numeric, optional) time in seconds how long (or until when if [absolute] is set) the ip is banned (0 or empty means using the default time of 24h which can also be overwritten by the -bantime startup argument)\n' +
        '4. "absolute"     (boolean, optional) If set, the bantime must be a absolute timestamp in seconds since epoch (Jan 1 1970 GMT)\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'setban', '"192.168.0.6" "add" 86400') +
        helpExampleCli(env, 'setban', '"192.168.0.0/24" "add"') +
        helpExampleRpc(env, 'setban', '"192.168.0.6", "add" 86400'),
      handler: (params) => setban(node, params),
    },
    {
      name: 'listbanned',
      category: 'network',
      minArgs: 0,
      maxArgs: 0,
      help: (env) =>
        'listbanned\n' +
        '\nList all banned IPs/Subnets.\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'listbanned', '') +
        helpExampleRpc(env, 'listbanned', ''),
      handler: async () => askRpc(node.p2p, { op: 'listbanned' }),
    },
    {
      name: 'clearbanned',
      category: 'network',
      minArgs: 0,
      maxArgs: 0,
      help: (env) =>
        'clearbanned\n' +
        '\nClear all banned IPs.\n' +
        '\nExamples:\n' +
        helpExampleCli(env, 'clearbanned', '') +
        helpExampleRpc(env, 'clearbanned', ''),
      handler: () => clearbanned(node),
    },
  ];
}

async function ping(node: NodeServices): Promise<JsonOut> {
  await askRpc(node.p2p, { op: 'ping' });
  return null;
}

async function addnode(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const command = getStr(params[1]!);
  const nodeText = getStr(params[0]!);
  await askRpc(node.p2p, { op: 'addnode', node: nodeText, command });
  return null;
}

async function disconnectnode(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  await askRpc(node.p2p, { op: 'disconnectnode', node: getStr(params[0]!) });
  return null;
}

async function getnetworkinfo(node: NodeServices): Promise<JsonOut> {
  const info = await askRpc(node.p2p, { op: 'networkinfo' });
  // GetNetworksInfo: every network but NET_UNROUTABLE; NET_INTERNAL has an empty name.
  const networks = [
    { name: 'ipv4', reachable: true },
    { name: 'ipv6', reachable: true },
    { name: 'onion', reachable: false },
    { name: '', reachable: false },
  ].map((n) => ({ name: n.name, limited: false, reachable: n.reachable, proxy: '', proxy_randomize_credentials: false }));
  return {
    version: CLIENT_VERSION,
    subversion: SUBVERSION,
    protocolversion: PROTOCOL_VERSION,
    localservices: info.localServices.toString(16).padStart(16, '0'),
    timeoffset: 0,
    connections: info.connections,
    networks,
    relayfee: new Amount(MIN_RELAY_TX_FEE),
    localaddresses: [],
    warnings: '',
  } as unknown as JsonOut;
}

async function setban(node: NodeServices, params: JsonValue[]): Promise<JsonOut> {
  const command = getStr(params[1]!);
  const subnet = getStr(params[0]!);
  let bantime = 0;
  if (params.length >= 3 && params[2] !== null) bantime = Number(getInt64(params[2] as JsonValue));
  // params[3].isTrue(): only a JSON true counts.
  const absolute = params.length === 4 && params[3] === true;
  await askRpc(node.p2p, { op: 'setban', subnet, command, bantime, absolute });
  return null;
}

async function clearbanned(node: NodeServices): Promise<JsonOut> {
  await askRpc(node.p2p, { op: 'clearbanned' });
  return null;
}
