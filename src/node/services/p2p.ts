import type { P2POptions } from '../../actors/p2p/logic.js';
import type { Asks, NodeParts } from './parts.js';

/** The p2p actor: -port, -listen/-bind, -addnode, -connect, -whitelist, -maxconnections, -banscore, -bantime, -debug=net. */
export function p2pOptions(parts: NodeParts, asks: Asks): P2POptions {
  const { config } = parts;
  return {
    params: config.chain,
    chain: asks.chain,
    mempool: asks.mempool,
    port: config.port,
    // -connect turns listening off unless -listen or -bind says otherwise (komodod's SoftSetBoolArg).
    listen: config.listen && !(config.connect.length > 0 && !config.flags.has('listen') && !config.flags.has('bind')),
    bind: config.flags.all('bind'),
    addnode: config.addnode,
    connect: config.connect,
    whitelist: config.flags.all('whitelist'),
    maxConnections: Number(config.flags.get('maxconnections') ?? 384),
    banScore: Number(config.flags.get('banscore') ?? 101),
    banTime: Number(config.flags.get('bantime') ?? 86400),
    debug: config.debug.includes('net') || config.debug.includes('1'),
    log: parts.log,
  };
}
