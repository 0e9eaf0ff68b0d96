// The layer rules of design.md ("A file's folder says what it may touch"), checked by `npm test`
// (`npm run layers` alone). A broken rule fails the run and names the rule, the importing file and
// the imported one.

// Where an actor's protocol lives: src/actors/protocol.ts (the generic request/reply shapes) and one
// src/actors/<actor>/protocol.ts per actor. These are all src/rpc may import from src/actors.
const ACTOR_PROTOCOLS = '^src/actors/(protocol|[^.]+/protocol)[.]ts$';

// TEMPORARY (issue 29; the lead tightens it after merging the `proto` branch): the actor files
// src/rpc still imports types from, until `proto` moves each record into its actor's protocol.ts
// and the generic Asker and NodeServices types to their homes. Only type-only imports of these
// pass (rule rpc-no-value-imports-of-actor-internals catches any other); delete an entry as soon
// as nothing in src/rpc imports it, and this list with it.
const TEMPORARY_RPC_TYPE_ONLY_IMPORTS = [
  '^src/actors/services[.]ts$',
  '^src/actors/ask[.]ts$',
  '^src/actors/chainstore/coins[.]ts$',
  '^src/actors/chainstore/logic[.]ts$',
  '^src/actors/chainstore/ordered-outputs[.]ts$',
  '^src/actors/mempool/logic[.]ts$',
  '^src/actors/tokens/registry[.]ts$',
  '^src/actors/wallet/logic[.]ts$',
];

// TEMPORARY (issue 29; the `root` branch moves these files to src/node/, the composition root,
// which may import everything): the node's wiring and its inspector still sit in src/actors and
// start the RPC server, render its JSON and list its methods.
const TEMPORARY_ACTORS_THAT_WIRE_RPC = ['^src/actors/node[.]ts$', '^src/actors/inspect[.]ts$'];

// TEMPORARY (issue 29; the `proto` branch owns the generic request/reply protocol and the typed
// ask): src/machines/service.ts speaks the generic protocol that still lives in
// src/actors/protocol.ts. It moves to src/machines (design.md: "plus the ask/reply types they
// speak"), and then this exception goes.
const TEMPORARY_MACHINES_PROTOCOL = '^src/actors/protocol[.]ts$';

// TEMPORARY (issue 29; `root` moves inspect.ts to src/node/): getactorstates (rpc/methods/dev.ts)
// renders actor snapshots with the inspector's actorState. Hold the state view behind an op or in
// src/machines when inspect.ts moves.
const TEMPORARY_RPC_INSPECT = '^src/actors/inspect[.]ts$';

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
      to: { pathNot: ['^src/(chain|machines)/', '^node_modules/xstate/', TEMPORARY_MACHINES_PROTOCOL] },
    },
    {
      name: 'actors-never-import-rpc-or-cli',
      comment: 'actors serve the RPC layer and the client; they never reach up into them.',
      severity: 'error',
      from: { path: '^src/actors/', pathNot: TEMPORARY_ACTORS_THAT_WIRE_RPC },
      to: { path: '^src/(rpc|cli)/' },
    },
    {
      name: 'rpc-no-value-imports-of-actor-internals',
      comment:
        'src/rpc talks to actors through messages: from src/actors it imports the protocol files only, ' +
        'never code (behaviour it needs lives in src/chain or behind an op).',
      severity: 'error',
      from: { path: '^src/rpc/' },
      to: { path: '^src/actors/', pathNot: [ACTOR_PROTOCOLS, TEMPORARY_RPC_INSPECT], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'rpc-imports-actor-protocols-only',
      comment: 'src/rpc imports from src/actors only src/actors/protocol.ts and src/actors/*/protocol.ts.',
      severity: 'error',
      from: { path: '^src/rpc/' },
      to: { path: '^src/actors/', pathNot: [ACTOR_PROTOCOLS, TEMPORARY_RPC_INSPECT, ...TEMPORARY_RPC_TYPE_ONLY_IMPORTS] },
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
