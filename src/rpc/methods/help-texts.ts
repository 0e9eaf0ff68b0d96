import { helpExampleCli, helpExampleRpc, type HelpEnv } from '../table.js';

/** komodod's help texts (src/rpc/blockchain.cpp, rawtransaction.cpp, misc.cpp, mining.cpp at 0adeeab), byte for byte. */

export const HELP_getblockcount = (env: HelpEnv): string =>
'getblockcount\n\nReturns the number of blocks in the best valid block chain.\n\nResult:\nn    (numeric) The current block count\n\nExamples:\n' +
  helpExampleCli(env, "getblockcount", "") +
  helpExampleRpc(env, "getblockcount", "")
;

export const HELP_getbestblockhash = (env: HelpEnv): string =>
'getbestblockhash\n\nReturns the hash of the best (tip) block in the longest block chain.\n\nResult\n\"hex\"      (string) the block hash hex encoded\n\nExamples\n' +
  helpExampleCli(env, "getbestblockhash", "") +
  helpExampleRpc(env, "getbestblockhash", "")
;

export const HELP_getdifficulty = (env: HelpEnv): string =>
'getdifficulty\n\nReturns the proof-of-work difficulty as a multiple of the minimum difficulty.\n\nResult:\nn.nnn       (numeric) the proof-of-work difficulty as a multiple of the minimum difficulty.\n\nExamples:\n' +
  helpExampleCli(env, "getdifficulty", "") +
  helpExampleRpc(env, "getdifficulty", "")
;

export const HELP_getrawmempool = (env: HelpEnv): string =>
'getrawmempool ( verbose )\n\nReturns all transaction ids in memory pool as a json array of string transaction ids.\n\nArguments:\n1. verbose           (boolean, optional, default=false) true for a json object, false for array of transaction ids\n\nResult: (for verbose = false):\n[                     (json array of string)\n  \"transactionid\"     (string) The transaction id\n  ,...\n]\n\nResult: (for verbose = true):\n{                           (json object)\n  \"transactionid\" : {       (json object)\n    \"size\" : n,             (numeric) transaction size in bytes\n    \"fee\" : n,              (numeric) transaction fee in ' +
  'KMD' +
  '\n    \"time\" : n,             (numeric) local time transaction entered pool in seconds since 1 Jan 1970 GMT\n    \"height\" : n,           (numeric) block height when transaction entered pool\n    \"startingpriority\" : n, (numeric) priority when transaction entered pool\n    \"currentpriority\" : n,  (numeric) transaction priority now\n    \"depends\" : [           (array) unconfirmed transactions used as inputs for this transaction\n        \"transactionid\",    (string) parent transaction id\n       ... ]\n  }, ...\n}\n\nExamples\n' +
  helpExampleCli(env, "getrawmempool", "true") +
  helpExampleRpc(env, "getrawmempool", "true")
;

export const HELP_getblockhash = (env: HelpEnv): string =>
'getblockhash index\n\nReturns hash of block in best-block-chain at index provided.\n\nArguments:\n1. index         (numeric, required) The block index\n\nResult:\n\"hash\"         (string) The block hash\n\nExamples:\n' +
  helpExampleCli(env, "getblockhash", "1000") +
  helpExampleRpc(env, "getblockhash", "1000")
;

export const HELP_getblockheader = (env: HelpEnv): string =>
'getblockheader \"hash\" ( verbose )\n\nIf verbose is false, returns a string that is serialized, hex-encoded data for blockheader \'hash\'.\nIf verbose is true, returns an Object with information about blockheader <hash>.\n\nArguments:\n1. \"hash\"          (string, required) The block hash\n2. verbose           (boolean, optional, default=true) true for a json object, false for the hex encoded data\n\nResult (for verbose = true):\n{\n  \"hash\" : \"hash\",     (string) the block hash (same as provided)\n  \"confirmations\" : n,   (numeric) The number of notarized DPoW confirmations, or -1 if the block is not on the main chain\n  \"rawconfirmations\" : n,(numeric) The number of raw confirmations, or -1 if the block is not on the main chain\n  \"height\" : n,          (numeric) The block height or index\n  \"version\" : n,         (numeric) The block version\n  \"merkleroot\" : \"xxxx\", (string) The merkle root\n  \"finalsaplingroot\" : \"xxxx\", (string) The root of the Sapling commitment tree after applying this block\n  \"time\" : ttt,          (numeric) The block time in seconds since epoch (Jan 1 1970 GMT)\n  \"nonce\" : n,           (numeric) The nonce\n  \"bits\" : \"1d00ffff\", (string) The bits\n  \"difficulty\" : x.xxx,  (numeric) The difficulty\n  \"previousblockhash\" : \"hash\",  (string) The hash of the previous block\n  \"nextblockhash\" : \"hash\"       (string) The hash of the next block\n}\n\nResult (for verbose=false):\n\"data\"             (string) A string that is serialized, hex-encoded data for block \'hash\'.\n\nExamples:\n' +
  helpExampleCli(env, "getblockheader", "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"") +
  helpExampleRpc(env, "getblockheader", "\"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09\"")
;

export const HELP_getblock = (env: HelpEnv): string =>
'getblock \"hash|height\" ( verbosity )\n\nIf verbosity is 0, returns a string that is serialized, hex-encoded data for the block.\nIf verbosity is 1, returns an Object with information about the block.\nIf verbosity is 2, returns an Object with information about the block and information about each transaction. \n\nArguments:\n1. \"hash|height\"          (string, required) The block hash or height\n2. verbosity              (numeric, optional, default=1) 0 for hex encoded data, 1 for a json object, and 2 for json object with transaction data\n\nResult (for verbosity = 0):\n\"data\"             (string) A string that is serialized, hex-encoded data for the block.\n\nResult (for verbosity = 1):\n{\n  \"hash\" : \"hash\",       (string) the block hash (same as provided hash)\n  \"confirmations\" : n,   (numeric) The number of notarized DPoW confirmations, or -1 if the block is not on the main chain\n  \"rawconfirmations\" : n,(numeric) The number of raw confirmations, or -1 if the block is not on the main chain\n  \"size\" : n,            (numeric) The block size\n  \"height\" : n,          (numeric) The block height or index (same as provided height)\n  \"version\" : n,         (numeric) The block version\n  \"merkleroot\" : \"xxxx\", (string) The merkle root\n  \"finalsaplingroot\" : \"xxxx\", (string) The root of the Sapling commitment tree after applying this block\n  \"tx\" : [               (array of string) The transaction ids\n     \"transactionid\"     (string) The transaction id\n     ,...\n  ],\n  \"time\" : ttt,          (numeric) The block time in seconds since epoch (Jan 1 1970 GMT)\n  \"nonce\" : n,           (numeric) The nonce\n  \"bits\" : \"1d00ffff\",   (string) The bits\n  \"difficulty\" : x.xxx,  (numeric) The difficulty\n  \"chainSupply\": {          (object) information about the total supply\n      \"monitored\": xx,           (boolean) true if the total supply is being monitored\n      \"chainValue\": xxxxxx,      (numeric, optional) total chain supply\n      \"chainValueZat\": xxxxxx,   (numeric, optional) total chain supply in satoshis\n      \"valueDelta\": xxxxxx,      (numeric, optional) change to the chain supply produced by this block\n      \"valueDeltaZat\": xxxxxx,   (numeric, optional) change to the chain supply produced by this block, in satoshis\n  }\n  \"valuePools\": [            (array) information about each value pool\n      {\n          \"id\": \"xxxx\",            (string) name of the pool\n          \"monitored\": xx,           (boolean) true if the pool is being monitored\n          \"chainValue\": xxxxxx,      (numeric, optional) total amount in the pool\n          \"chainValueZat\": xxxxxx,   (numeric, optional) total amount in the pool in satoshis\n          \"valueDelta\": xxxxxx,      (numeric, optional) change to the amount in the pool produced by this block\n          \"valueDeltaZat\": xxxxxx,   (numeric, optional) change to the amount in the pool produced by this block, in satoshis\n      }, ...\n  ]\n  \"previousblockhash\" : \"hash\",  (string) The hash of the previous block\n  \"nextblockhash\" : \"hash\"       (string) The hash of the next block\n}\n\nResult (for verbosity = 2):\n{\n  ...,                     Same output as verbosity = 1.\n  \"tx\" : [               (array of Objects) The transactions in the format of the getrawtransaction RPC. Different from verbosity = 1 \"tx\" result.\n         ,...\n  ],\n  ,...                     Same output as verbosity = 1.\n}\n\nExamples:\n' +
  helpExampleCli(env, "getblock", "\"00000000febc373a1da2bd9f887b105ad79ddc26ac26c2b28652d64e5207c5b5\"") +
  helpExampleRpc(env, "getblock", "\"00000000febc373a1da2bd9f887b105ad79ddc26ac26c2b28652d64e5207c5b5\"") +
  helpExampleCli(env, "getblock", "12800") +
  helpExampleRpc(env, "getblock", "12800")
;

export const HELP_gettxout = (env: HelpEnv): string =>
'gettxout \"txid\" n ( includemempool )\n\nReturns details about an unspent transaction output.\n\nArguments:\n1. \"txid\"       (string, required) The transaction id\n2. n              (numeric, required) vout value\n3. includemempool  (boolean, optional) Whether to include the mempool\n\nResult:\n{\n  \"bestblock\" : \"hash\",    (string) the block hash\n  \"confirmations\" : n,       (numeric) The number of notarized DPoW confirmations\n  \"rawconfirmations\" : n,    (numeric) The number of raw confirmations\n  \"value\" : x.xxx,           (numeric) The transaction value in ' +
  'KMD' +
  '\n  \"scriptPubKey\" : {         (json object)\n     \"asm\" : \"code\",       (string) \n     \"hex\" : \"hex\",        (string) \n     \"reqSigs\" : n,          (numeric) Number of required signatures\n     \"type\" : \"pubkeyhash\", (string) The type, eg pubkeyhash\n     \"addresses\" : [          (array of string) array of Komodo addresses\n        \"komodoaddress\"        (string) Komodo address\n        ,...\n     ]\n  },\n  \"version\" : n,              (numeric) The version\n  \"coinbase\" : true|false     (boolean) Coinbase or not\n}\n\nExamples:\n\nGet unspent transactions\n' +
  helpExampleCli(env, "listunspent", "") +
  '\nView the details\n' +
  helpExampleCli(env, "gettxout", "\"txid\" 1") +
  '\nAs a json rpc call\n' +
  helpExampleRpc(env, "gettxout", "\"txid\", 1")
;

export const HELP_getblockchaininfo = (env: HelpEnv): string =>
'getblockchaininfo\nReturns an object containing various state info regarding block chain processing.\n\nNote that when the chain tip is at the last block before a network upgrade activation,\nconsensus.chaintip != consensus.nextblock.\n\nResult:\n{\n  \"chain\": \"xxxx\",        (string) current network name as defined in BIP70 (main, test, regtest)\n  \"blocks\": xxxxxx,         (numeric) the current number of blocks processed in the server\n  \"headers\": xxxxxx,        (numeric) the current number of headers we have validated\n  \"bestblockhash\": \"...\", (string) the hash of the currently best block\n  \"difficulty\": xxxxxx,     (numeric) the current difficulty\n  \"verificationprogress\": xxxx, (numeric) estimate of verification progress [0..1]\n  \"chainwork\": \"xxxx\"     (string) total amount of work in active chain, in hexadecimal\n  \"commitments\": xxxxxx,    (numeric) the current number of note commitments in the commitment tree\n  \"chainSupply\": {          (object) information about the total supply\n      \"monitored\": xx,           (boolean) true if the total supply is being monitored\n      \"chainValue\": xxxxxx,      (numeric, optional) total chain supply\n      \"chainValueZat\": xxxxxx,   (numeric, optional) total chain supply in satoshis\n  }\n  \"valuePools\": [            (array) information about each value pool\n      {\n          \"id\": \"xxxx\",            (string) name of the pool\n          \"monitored\": xx,           (boolean) true if the pool is being monitored\n          \"chainValue\": xxxxxx,      (numeric, optional) total amount in the pool\n          \"chainValueZat\": xxxxxx,   (numeric, optional) total amount in the pool in satoshis\n      }, ...\n  ]\n  \"softforks\": [            (array) status of softforks in progress\n     {\n        \"id\": \"xxxx\",        (string) name of softfork\n        \"version\": xx,         (numeric) block version\n        \"enforce\": {           (object) progress toward enforcing the softfork rules for new-version blocks\n           \"status\": xx,       (boolean) true if threshold reached\n           \"found\": xx,        (numeric) number of blocks with the new version found\n           \"required\": xx,     (numeric) number of blocks required to trigger\n           \"window\": xx,       (numeric) maximum size of examined window of recent blocks\n        },\n        \"reject\": { ... }      (object) progress toward rejecting pre-softfork blocks (same fields as \"enforce\")\n     }, ...\n  ],\n  \"upgrades\": {                (object) status of network upgrades\n     \"xxxx\" : {                (string) branch ID of the upgrade\n        \"name\": \"xxxx\",        (string) name of upgrade\n        \"activationheight\": xxxxxx,  (numeric) block height of activation\n        \"status\": \"xxxx\",      (string) status of upgrade\n        \"info\": \"xxxx\",        (string) additional information about upgrade\n     }, ...\n  },\n  \"consensus\": {               (object) branch IDs of the current and upcoming consensus rules\n     \"chaintip\": \"xxxxxxxx\",   (string) branch ID used to validate the current chain tip\n     \"nextblock\": \"xxxxxxxx\"   (string) branch ID that the next block will be validated under\n  }\n}\n\nExamples:\n' +
  helpExampleCli(env, "getblockchaininfo", "") +
  helpExampleRpc(env, "getblockchaininfo", "")
;

export const HELP_getmempoolinfo = (env: HelpEnv): string =>
'getmempoolinfo\n\nReturns details on the active state of the TX memory pool.\n\nResult:\n{\n  \"size\": xxxxx                (numeric) Current tx count\n  \"bytes\": xxxxx               (numeric) Sum of all tx sizes\n  \"usage\": xxxxx               (numeric) Total memory usage for the mempool\n}\n\nExamples:\n' +
  helpExampleCli(env, "getmempoolinfo", "") +
  helpExampleRpc(env, "getmempoolinfo", "")
;

export const HELP_invalidateblock = (env: HelpEnv): string =>
'invalidateblock \"hash\"\n\nPermanently marks a block as invalid, as if it violated a consensus rule.\n\nArguments:\n1. hash   (string, required) the hash of the block to mark as invalid\n\nResult:\n\nExamples:\n' +
  helpExampleCli(env, "invalidateblock", "\"blockhash\"") +
  helpExampleRpc(env, "invalidateblock", "\"blockhash\"")
;

export const HELP_reconsiderblock = (env: HelpEnv): string =>
'reconsiderblock \"hash\"\n\nRemoves invalidity status of a block and its descendants, reconsider them for activation.\nThis can be used to undo the effects of invalidateblock.\n\nArguments:\n1. hash   (string, required) the hash of the block to reconsider\n\nResult:\n\nExamples:\n' +
  helpExampleCli(env, "reconsiderblock", "\"blockhash\"") +
  helpExampleRpc(env, "reconsiderblock", "\"blockhash\"")
;

export const HELP_getinfo = (env: HelpEnv): string =>
'getinfo\nReturns an object containing various state info.\n\nResult:\n{\n  \"version\": xxxxx,           (numeric) the server version\n  \"protocolversion\": xxxxx,   (numeric) the protocol version\n  \"walletversion\": xxxxx,     (numeric) the wallet version\n  \"balance\": xxxxxxx,         (numeric) the total Komodo balance of the wallet\n  \"blocks\": xxxxxx,           (numeric) the current number of blocks processed in the server\n  \"timeoffset\": xxxxx,        (numeric) the time offset (deprecated; always 0)\n  \"connections\": xxxxx,       (numeric) the number of connections\n  \"proxy\": \"host:port\",     (string, optional) the proxy used by the server\n  \"difficulty\": xxxxxx,       (numeric) the current difficulty\n  \"testnet\": true|false,      (boolean) if the server is using testnet or not\n  \"keypoololdest\": xxxxxx,    (numeric) the timestamp (seconds since GMT epoch) of the oldest pre-generated key in the key pool\n  \"keypoolsize\": xxxx,        (numeric) how many new keys are pre-generated\n  \"unlocked_until\": ttt,      (numeric) the timestamp in seconds since epoch (midnight Jan 1 1970 GMT) that the wallet is unlocked for transfers, or 0 if the wallet is locked\n  \"paytxfee\": x.xxxx,         (numeric) the transaction fee set in ' +
  'KMD' +
  '/kB\n  \"relayfee\": x.xxxx,         (numeric) minimum relay fee for non-free transactions in ' +
  'KMD' +
  '/kB\n  \"errors\": \"...\"           (string) any error messages\n}\n\nExamples:\n' +
  helpExampleCli(env, "getinfo", "") +
  helpExampleRpc(env, "getinfo", "")
;

export const HELP_getmininginfo = (env: HelpEnv): string =>
'getmininginfo\n\nReturns a json object containing mining-related information.\nResult:\n{\n  \"blocks\": nnn,             (numeric) The current block\n  \"currentblocksize\": nnn,   (numeric) The last block size\n  \"currentblocktx\": nnn,     (numeric) The last block transaction\n  \"difficulty\": xxx.xxxxx    (numeric) The current difficulty\n  \"errors\": \"...\"          (string) Current errors\n  \"generate\": true|false     (boolean) If the generation is on or off (see getgenerate or setgenerate calls)\n  \"genproclimit\": n          (numeric) The processor limit for generation. -1 if no generation. (see getgenerate or setgenerate calls)\n  \"localsolps\": xxx.xxxxx    (numeric) The average local solution rate in Sol/s since this node was started\n  \"networksolps\": x          (numeric) The estimated network solution rate in Sol/s\n  \"pooledtx\": n              (numeric) The size of the mem pool\n  \"testnet\": true|false      (boolean) If using testnet or not\n  \"chain\": \"xxxx\",         (string) current network name as defined in BIP70 (main, test, regtest)\n}\n\nExamples:\n' +
  helpExampleCli(env, "getmininginfo", "") +
  helpExampleRpc(env, "getmininginfo", "")
;

export const HELP_submitblock = (env: HelpEnv): string =>
'submitblock \"hexdata\" ( \"jsonparametersobject\" )\n\nAttempts to submit new block to network.\nThe \'jsonparametersobject\' parameter is currently ignored.\nSee https://en.bitcoin.it/wiki/BIP_0022 for full specification.\n\nArguments\n1. \"hexdata\"    (string, required) the hex-encoded block data to submit\n2. \"jsonparametersobject\"     (string, optional) object of optional parameters\n    {\n      \"workid\" : \"id\"    (string, optional) if the server provided a workid, it MUST be included with submissions\n    }\n\nResult:\n\"duplicate\" - node already has valid copy of block\n\"duplicate-invalid\" - node already has block, but it is invalid\n\"duplicate-inconclusive\" - node already has block but has not validated it\n\"inconclusive\" - node has not validated the block, it may not be on the node\'s current best chain\n\"rejected\" - block was rejected as invalid\nFor more information on submitblock parameters and results, see: https://github.com/bitcoin/bips/blob/master/bip-0022.mediawiki#block-submission\n\nExamples:\n' +
  helpExampleCli(env, "submitblock", "\"mydata\"") +
  helpExampleRpc(env, "submitblock", "\"mydata\"")
;

export const HELP_decoderawtransaction = (env: HelpEnv): string =>
'decoderawtransaction \"hexstring\"\n\nReturn a JSON object representing the serialized, hex-encoded transaction.\n\nArguments:\n1. \"hex\"      (string, required) The transaction hex string\n\nResult:\n{\n  \"txid\" : \"id\",        (string) The transaction id\n  \"overwintered\" : bool   (boolean) The Overwintered flag\n  \"version\" : n,          (numeric) The version\n  \"versiongroupid\": \"hex\"   (string, optional) The version group id (Overwintered txs)\n  \"locktime\" : ttt,       (numeric) The lock time\n  \"expiryheight\" : n,     (numeric, optional) Last valid block height for mining transaction (Overwintered txs)\n  \"vin\" : [               (array of json objects)\n     {\n       \"txid\": \"id\",    (string) The transaction id\n       \"vout\": n,         (numeric) The output number\n       \"scriptSig\": {     (json object) The script\n         \"asm\": \"asm\",  (string) asm\n         \"hex\": \"hex\"   (string) hex\n       },\n       \"sequence\": n     (numeric) The script sequence number\n     }\n     ,...\n  ],\n  \"vout\" : [             (array of json objects)\n     {\n       \"value\" : x.xxx,            (numeric) The value in ' +
  'KMD' +
  '\n       \"n\" : n,                    (numeric) index\n       \"scriptPubKey\" : {          (json object)\n         \"asm\" : \"asm\",          (string) the asm\n         \"hex\" : \"hex\",          (string) the hex\n         \"reqSigs\" : n,            (numeric) The required sigs\n         \"type\" : \"pubkeyhash\",  (string) The type, eg \'pubkeyhash\'\n         \"addresses\" : [           (json array of string)\n           \"RTZMZHDFSTFQst8XmX2dR4DaH87cEUs3gC\"   (string) komodo address\n           ,...\n         ]\n       }\n     }\n     ,...\n  ],\n  \"vjoinsplit\" : [        (array of json objects, only for version >= 2)\n     {\n       \"vpub_old\" : x.xxx,         (numeric) public input value in KMD\n       \"vpub_new\" : x.xxx,         (numeric) public output value in KMD\n       \"anchor\" : \"hex\",         (string) the anchor\n       \"nullifiers\" : [            (json array of string)\n         \"hex\"                     (string) input note nullifier\n         ,...\n       ],\n       \"commitments\" : [           (json array of string)\n         \"hex\"                     (string) output note commitment\n         ,...\n       ],\n       \"onetimePubKey\" : \"hex\",  (string) the onetime public key used to encrypt the ciphertexts\n       \"randomSeed\" : \"hex\",     (string) the random seed\n       \"macs\" : [                  (json array of string)\n         \"hex\"                     (string) input note MAC\n         ,...\n       ],\n       \"proof\" : \"hex\",          (string) the zero-knowledge proof\n       \"ciphertexts\" : [           (json array of string)\n         \"hex\"                     (string) output note ciphertext\n         ,...\n       ]\n     }\n     ,...\n  ],\n}\n\nExamples:\n' +
  helpExampleCli(env, "decoderawtransaction", "\"hexstring\"") +
  helpExampleRpc(env, "decoderawtransaction", "\"hexstring\"")
;

export const HELP_decodescript = (env: HelpEnv): string =>
'decodescript \"hex\"\n\nDecode a hex-encoded script.\n\nArguments:\n1. \"hex\"     (string) the hex encoded script\n\nResult:\n{\n  \"asm\":\"asm\",   (string) Script public key\n  \"hex\":\"hex\",   (string) hex encoded public key\n  \"type\":\"type\", (string) The output type\n  \"reqSigs\": n,    (numeric) The required signatures\n  \"addresses\": [   (json array of string)\n     \"address\"     (string) Komodo address\n     ,...\n  ],\n  \"p2sh\",\"address\" (string) script address\n}\n\nExamples:\n' +
  helpExampleCli(env, "decodescript", "\"hexstring\"") +
  helpExampleRpc(env, "decodescript", "\"hexstring\"")
;

export const HELP_getrawtransaction = (env: HelpEnv): string =>
'getrawtransaction \"txid\" ( verbose )\n\nNOTE: By default this function only works sometimes. This is when the tx is in the mempool\nor there is an unspent output in the utxo for this transaction. To make it always work,\nyou need to maintain a transaction index, using the -txindex command line option.\n\nReturn the raw transaction data.\n\nIf verbose=0, returns a string that is serialized, hex-encoded data for \'txid\'.\nIf verbose is non-zero, returns an Object with information about \'txid\'.\n\nArguments:\n1. \"txid\"      (string, required) The transaction id\n2. verbose       (numeric, optional, default=0) If 0, return a string, other return a json object\n\nResult (if verbose is not set or set to 0):\n\"data\"      (string) The serialized, hex-encoded data for \'txid\'\n\nResult (if verbose > 0):\n{\n  \"hex\" : \"data\",       (string) The serialized, hex-encoded data for \'txid\'\n  \"txid\" : \"id\",        (string) The transaction id (same as provided)\n  \"version\" : n,          (numeric) The version\n  \"locktime\" : ttt,       (numeric) The lock time\n  \"expiryheight\" : ttt,   (numeric, optional) The block height after which the transaction expires\n  \"vin\" : [               (array of json objects)\n     {\n       \"txid\": \"id\",    (string) The transaction id\n       \"vout\": n,         (numeric) \n       \"scriptSig\": {     (json object) The script\n         \"asm\": \"asm\",  (string) asm\n         \"hex\": \"hex\"   (string) hex\n       },\n       \"sequence\": n      (numeric) The script sequence number\n     }\n     ,...\n  ],\n  \"vout\" : [              (array of json objects)\n     {\n       \"value\" : x.xxx,            (numeric) The value in ' +
  'KMD' +
  '\n       \"n\" : n,                    (numeric) index\n       \"scriptPubKey\" : {          (json object)\n         \"asm\" : \"asm\",          (string) the asm\n         \"hex\" : \"hex\",          (string) the hex\n         \"reqSigs\" : n,            (numeric) The required sigs\n         \"type\" : \"pubkeyhash\",  (string) The type, eg \'pubkeyhash\'\n         \"addresses\" : [           (json array of string)\n           \"komodoaddress\"          (string) Komodo address\n           ,...\n         ]\n       }\n     }\n     ,...\n  ],\n  \"vjoinsplit\" : [        (array of json objects, only for version >= 2)\n     {\n       \"vpub_old\" : x.xxx,         (numeric) public input value in KMD\n       \"vpub_new\" : x.xxx,         (numeric) public output value in KMD\n       \"anchor\" : \"hex\",         (string) the anchor\n       \"nullifiers\" : [            (json array of string)\n         \"hex\"                     (string) input note nullifier\n         ,...\n       ],\n       \"commitments\" : [           (json array of string)\n         \"hex\"                     (string) output note commitment\n         ,...\n       ],\n       \"onetimePubKey\" : \"hex\",  (string) the onetime public key used to encrypt the ciphertexts\n       \"randomSeed\" : \"hex\",     (string) the random seed\n       \"macs\" : [                  (json array of string)\n         \"hex\"                     (string) input note MAC\n         ,...\n       ],\n       \"proof\" : \"hex\",          (string) the zero-knowledge proof\n       \"ciphertexts\" : [           (json array of string)\n         \"hex\"                     (string) output note ciphertext\n         ,...\n       ]\n     }\n     ,...\n  ],\n  \"blockhash\" : \"hash\",   (string) the block hash\n  \"confirmations\" : n,      (numeric) The number of notarized DPoW confirmations\n  \"rawconfirmations\" : n,   (numeric) The number of raw confirmations\n  \"time\" : ttt,             (numeric) The transaction time in seconds since epoch (Jan 1 1970 GMT)\n  \"blocktime\" : ttt         (numeric) The block time in seconds since epoch (Jan 1 1970 GMT)\n}\n\nExamples:\n' +
  helpExampleCli(env, "getrawtransaction", "\"mytxid\"") +
  helpExampleCli(env, "getrawtransaction", "\"mytxid\" 1") +
  helpExampleRpc(env, "getrawtransaction", "\"mytxid\", 1")
;

export const HELP_sendrawtransaction = (env: HelpEnv): string =>
'sendrawtransaction \"hexstring\" ( allowhighfees )\n\nSubmits raw transaction (serialized, hex-encoded) to local node and network.\n\nAlso see createrawtransaction and signrawtransaction calls.\n\nArguments:\n1. \"hexstring\"    (string, required) The hex string of the raw transaction)\n2. allowhighfees    (boolean, optional, default=false) Allow high fees\n\nResult:\n\"hex\"             (string) The transaction hash in hex\n\nExamples:\n\nCreate a transaction\n' +
  helpExampleCli(env, "createrawtransaction", "\"[{\\\"txid\\\" : \\\"mytxid\\\",\\\"vout\\\":0}]\" \"{\\\"myaddress\\\":0.01}\"") +
  'Sign the transaction, and get back the hex\n' +
  helpExampleCli(env, "signrawtransaction", "\"myhex\"") +
  '\nSend the transaction (signed hex)\n' +
  helpExampleCli(env, "sendrawtransaction", "\"signedhex\"") +
  '\nAs a json rpc call\n' +
  helpExampleRpc(env, "sendrawtransaction", "\"signedhex\"")
;

