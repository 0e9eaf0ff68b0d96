#!/usr/bin/env node
// acnoded: the acnode daemon. Thin: parse the flags, start the node, stop it on a signal.
import { readFileSync } from 'node:fs';
import { loadConfig, ConfigError } from '../src/node/config.js';
import { startNode } from '../src/node/node.js';
import { InspectHub } from '../src/node/inspect.js';
import { attachExplorer } from '../src/node/explorer/index.js';
import { ServiceFailure } from '../src/actors/protocol.js';

function log(msg: string): void {
  process.stdout.write(`${new Date().toISOString()} ${msg}\n`);
}

const USAGE = `acnoded: a Komodo asset-chain node (komodod's JSON-RPC for tokens and raw transactions)

Usage:
  acnoded [options]                 the dev chain (ACDEV, regtest, mining at ac_blocktime)
  acnoded -ac_name=NAME [-ac_*...]  the asset chain the -ac_* flags describe, as komodod runs it

Options (komodod's; every other komodod flag is accepted and logged when acnode does not use it):
  -datadir=<dir>  -conf=<file>  -rpcport=<port>  -rpcuser=<user>  -rpcpassword=<pw>
  -rpcbind=<addr>  -rpcallowip=<ip>  -port=<port>  -addnode=<ip:port>  -connect=<ip:port>
  -pubkey=<hex>  -gen  -genproclimit=<n>  -datacarriersize=<n>  -blocknotify=<cmd>
  -walletnotify=<cmd>  -reindex  -dbcache=<MiB>  -inspect  -explorer  -par=<n>  -sigbackend=<auto|native|wasm|noble>
  -version  -help
`;

async function main(): Promise<number> {
  // -help and -version answer without touching a data directory.
  const argv = process.argv.slice(2);
  if (argv.some((a) => /^--?(help|h|\?)$/.test(a))) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (argv.some((a) => /^--?version$/.test(a))) {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    process.stdout.write(`acnoded v${pkg.version}\n`);
    return 0;
  }
  let config;
  try {
    config = loadConfig(process.argv.slice(2));
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`Error: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  for (const w of config.warnings) log(`warning: ${w}`);
  if (config.ignored.length) log(`ignored flags (not used by acnode): ${config.ignored.join(' ')}`);
  log(`acnoded starting: chain ${config.chain.name}${config.devChain ? ' (dev chain)' : ''}, datadir ${config.datadir}`);
  // -inspect: every actor reports to the hub, which streams to WebSocket clients on loopback.
  // -explorer: the same endpoint serves only the local page (no actor stream, nothing paid in the actors).
  let inspector: InspectHub | undefined;
  if (config.inspect || config.explorer) {
    inspector = new InspectHub({ log, stream: config.inspect });
    const url = await inspector.listen(0);
    if (config.inspect) log(`inspector listening on ${url} (acnode-cli inspect, a WebSocket client, or a browser at ${inspector.pageUrl})`);
  }
  const node = await startNode(config, { log, ...(inspector && config.inspect ? { inspector } : {}) });
  if (inspector) {
    attachExplorer(inspector, node.services, node.helpEnv, config.inspect);
    log(`explorer page at ${inspector.pageUrl} (loopback only, this start's token)`);
  }
  if (config.devChain) {
    log(`dev chain ready: JSON-RPC at http://127.0.0.1:${node.rpc.port}/ — credentials (rpcuser/rpcpassword) in ${config.confPath}`);
  }
  let signalled = false;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      if (signalled) return;
      signalled = true;
      log(`${sig} received`);
      void node.stop();
    });
  }
  await node.stopped;
  await inspector?.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    // A setting that cannot be honoured once the node starts (-sigbackend=native where the addon does
    // not load) is reported as a bad flag is.
    if (e instanceof ConfigError) {
      process.stderr.write(`Error: ${e.message}\n`);
      process.exit(1);
    }
    // A service that failed to load (a damaged or newer data directory) answers with its reason: that
    // message is the whole story, without a stack; anything else is a bug and keeps its stack.
    if (e instanceof ServiceFailure) {
      process.stderr.write(`acnoded: cannot start: ${e.message.replace(/^(Error: )+/, '')}\n`);
      process.exit(1);
    }
    process.stderr.write(`acnoded: fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
