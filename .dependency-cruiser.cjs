// The layer rules of design.md ("A file's folder says what it may touch"), checked by `npm test`
// (`npm run layers` alone). A broken rule fails the run and names the rule, the importing file and
// the imported one.

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
        'src/node (the composition root) wires everything; below it nothing imports it but for types ' +
        '(NodeConfig, inspection records) and the client sharing the conf-file parser.',
      severity: 'error',
      from: { path: '^src/(chain|machines|actors|rpc|cli)/' },
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
