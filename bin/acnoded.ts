#!/usr/bin/env node
// acnoded: the acnode daemon. Thin: parse the flags, start the node, stop it on a signal.
import { loadConfig, ConfigError } from '../src/actors/config.js';
import { startNode } from '../src/actors/node.js';

function log(msg: string): void {
  process.stdout.write(`${new Date().toISOString()} ${msg}\n`);
}

async function main(): Promise<number> {
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
  const node = await startNode(config, { log });
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
  return 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    process.stderr.write(`acnoded: fatal: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(1);
  },
);
