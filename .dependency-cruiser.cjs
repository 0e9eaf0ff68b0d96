// The layer rules of design.md ("A file's folder says what it may touch"), checked by `npm test`
// (`npm run layers` alone). A broken rule fails the run and names the rule, the importing file and
// the imported one, with the rule's comment (`--output-type err-long`).

// Where an actor's protocol lives: src/actors/protocol.ts (the generic request/reply shapes) and one
// src/actors/<actor>/protocol.ts per actor. These are all src/rpc may import from src/actors.
const ACTOR_PROTOCOLS = '^src/actors/(protocol|[^.]+/protocol)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'chain-imports-nothing-above',
      comment: 'src/chain is pure consensus and encodings: it imports nothing from the folders above it.',
      severity: 'error',
      from: { path: '^src/chain/' },
      to: { path: '^(src/(actors|machines|rpc|cli|node|web)/|bin/)' },
    },
    {
      name: 'machines-import-chain-and-xstate-only',
      comment: 'src/machines imports src/chain and xstate, nothing else.',
      severity: 'error',
      from: { path: '^src/machines/' },
      to: { pathNot: ['^src/(chain|machines)/', '^node_modules/xstate/'] },
    },
    {
      name: 'actors-never-import-rpc-or-cli',
      comment: 'actors serve the RPC layer and the client; they never reach up into them.',
      severity: 'error',
      from: { path: '^src/actors/' },
      to: { path: '^src/(rpc|cli)/' },
    },
    // "Actors exchanging typed messages" (design.md), in the import graph. Each import from one
    // src/actors folder into another was decided once:
    // - another actor's protocol.ts: allowed (requests, replies, notices and the records they carry).
    // - storage/datastore.ts: allowed. storage/ is no actor but the nedb file store (open, compact,
    //   peek) the wallet's stores and the chain store's nedb migration both open.
    // - verify/pool.ts: allowed. verify/ is no actor but the script-check worker pool: one pool of
    //   threads per node, handed to the chain store (block connect) and the mempool (accept), which
    //   call it directly to check scripts; its other files (worker, ring, wire, jobs) stay its own.
    // - verify/sample-block.ts (synthetic blocks for tests and benchmarks) imports src/chain only.
    // - anything else of another actor: never. Pure code two actors need moved to src/chain
    //   (assembleBlock to src/chain/block/assemble.ts, the address index's outpoint order to
    //   src/chain/address/unspent-order.ts, ConnectView to src/chain/validation/coin.ts); a type they
    //   share goes to the owner's protocol.ts (WalletKey, WalletKeys).
    // The files beside the folders (protocol.ts, ask.ts, clock.ts, services.ts) are the envelope
    // every actor and the RPC layer import; they import only protocol.ts files from the folders
    // (services.ts typed the key store as KeyStore and the settings as src/node's NodeConfig: now the
    // wallet protocol's WalletKeys and NodeSettings, which NodeConfig extends).
    {
      name: 'actors-meet-by-messages',
      comment:
        'actors meet by messages: a file in src/actors/X imports from another src/actors/Y only ' +
        'Y/protocol.ts (or the shared storage/datastore.ts and verify/pool.ts). Move pure code both ' +
        'need to src/chain, a type they share to its owner\'s protocol.ts, or ask Y by message.',
      severity: 'error',
      from: { path: '^src/actors/([^/]+)/' },
      to: {
        path: '^src/actors/[^/]+/',
        pathNot: [
          '^src/actors/$1/',
          '^src/actors/[^/]+/protocol[.]ts$',
          '^src/actors/storage/datastore[.]ts$',
          '^src/actors/verify/pool[.]ts$',
        ],
      },
    },
    {
      name: 'actors-envelope-imports-protocols-only',
      comment:
        'the shared envelope beside the actor folders (src/actors/protocol.ts, ask.ts, clock.ts, ' +
        'services.ts) imports from the folders their protocol.ts files only: what it names of an ' +
        'actor is a protocol type.',
      severity: 'error',
      from: { path: '^src/actors/[^/]+[.]ts$' },
      to: { path: '^src/actors/[^/]+/', pathNot: ['^src/actors/[^/]+/protocol[.]ts$'] },
    },
    {
      name: 'rpc-no-value-imports-of-actor-internals',
      comment:
        'src/rpc talks to actors through messages: from src/actors it imports the protocol files only, ' +
        'never code (behaviour it needs lives in src/chain or behind an op).',
      severity: 'error',
      from: { path: '^src/rpc/' },
      to: { path: '^src/actors/', pathNot: [ACTOR_PROTOCOLS], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'rpc-imports-actor-protocols-only',
      comment: 'src/rpc imports from src/actors only src/actors/protocol.ts and src/actors/*/protocol.ts.',
      severity: 'error',
      from: { path: '^src/rpc/' },
      to: { path: '^src/actors/', pathNot: [ACTOR_PROTOCOLS] },
    },
    {
      name: 'node-is-the-root',
      comment:
        'src/node (the composition root) wires everything; nothing below it imports it, not even ' +
        'for types (the settings the RPC layer reads are NodeSettings in src/actors/services.ts).',
      severity: 'error',
      from: { path: '^src/(chain|machines|actors|rpc)/' },
      to: { path: '^src/node/' },
    },
    {
      name: 'client-shares-the-conf-parser-only',
      comment:
        'acnode-cli imports from src/node the conf-file parser it shares with acnoded ' +
        '(config-args.ts) and types of the inspection stream it prints, nothing else.',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/node/', pathNot: '^src/node/config-args[.]ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'web-imports-nothing-from-src',
      comment: 'src/web is static page files: it talks to the node over its endpoints, never by import.',
      severity: 'error',
      from: { path: '^src/web/' },
      to: { path: '^(src|bin)/', pathNot: '^src/web/' },
    },
    {
      name: 'no-circular',
      comment: 'no import cycles: each module can be read (and loaded) after the ones it imports.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'an import that resolves to no file is a typo or a missing dependency.',
      severity: 'error',
      // The page's ./vendor/ modules are library files the node serves from node_modules (src/node/explorer/routes.ts).
      from: {},
      to: { couldNotResolve: true, pathNot: '^[.]/vendor/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are dependencies too (and marked `type-only`, which the rpc rules read).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.mjs', '.js', '.cjs', '.d.ts'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
