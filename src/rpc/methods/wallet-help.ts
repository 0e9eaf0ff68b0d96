import { helpExampleCli, helpExampleRpc, helpRequiringPassphrase, type HelpEnv } from '../table.js';

/* komodod's help texts of the wallet methods, byte for byte (src/wallet/rpcwallet.cpp, rpcdump.cpp,
 * src/rpc/rawtransaction.cpp, src/rpc/misc.cpp at 0adeeab), generated from the C++ string literals: CURRENCY_UNIT
 * is "KMD", chainName.ToString() the -ac_name, HelpRequiringPassphrase() is helpRequiringPassphrase(env). */

export const createrawtransactionHelp = (env: HelpEnv): string =>
    "createrawtransaction [{\"txid\":\"id\",\"vout\":n},...] {\"address\":amount,...} ( locktime ) ( expiryheight )\n\nCreate a transaction spending the given inputs and creating new outputs.\nOutputs can be addresses or standart scripts (in hex) or data.\nReturns hex-encoded raw transaction.\nNote that the transaction's inputs are not signed, and\nit is not stored in the wallet or transmitted to the network.\n\nArguments:\n1. \"inputs\"                (array, required) A json array of json objects\n     [\n       {\n         \"txid\":\"id\",    (string, required) The transaction id\n         \"vout\":n,         (numeric, required) The output number\n         \"sequence\":n      (numeric, optional) The sequence number\n       } \n       ,...\n     ]\n2. \"outputs\"               (object, required) a json object with outputs\n    {\n      \"address\": x.xxx,    (numeric or string, required) The key is the komodo address or script (in hex), the numeric value (can be string) is the " +
    'KMD' +
    " amount\n      \"data\": \"hex\"      (string, required) The key is \"data\", the value is hex encoded data\n      ,...\n    }\n3. locktime              (numeric, optional, default=0) Raw locktime. Non-0 value also locktime-activates inputs\n4. expiryheight          (numeric, optional, default=" +
    String(200) +
    ") Expiry height of transaction (if Overwinter is active)\n\nResult:\n\"transaction\"            (string) hex string of the transaction\n\nExamples\n" +
    helpExampleCli(env, "createrawtransaction", "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\" \"{\\\"address\\\":0.01}\"") +
    helpExampleCli(env, "createrawtransaction", "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\" \"{\\\"" +
    '21021ce1eac70455c3e6c52d67c133549b8aed4a588fba594372e8048e65c4f0fcb6ac' +
    "\\\":0.01}\"") +
    helpExampleCli(env, "createrawtransaction", "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\" \"{\\\"data\\\":\\\"00010203\\\"}\"") +
    helpExampleRpc(env, "createrawtransaction", "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\", \"{\\\"address\\\":0.01}\"") +
    helpExampleRpc(env, "createrawtransaction", "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\", \"{\\\"" +
    '21021ce1eac70455c3e6c52d67c133549b8aed4a588fba594372e8048e65c4f0fcb6ac' +
    "\\\":0.01}\"") +
    helpExampleRpc(env, "createrawtransaction", "\"[{\\\"txid\\\":\\\"myid\\\",\\\"vout\\\":0}]\", \"{\\\"data\\\":\\\"00010203\\\"}\"");

export const fundrawtransactionHelp = (env: HelpEnv): string =>
    "fundrawtransaction \"hexstring\"\n\nAdd inputs to a transaction until it has enough in value to meet its out value.\nThis will not modify existing inputs, and will add one change output to the outputs.\nNote that inputs which were signed may need to be resigned after completion since in/outputs have been added.\nThe inputs added will not be signed, use signrawtransaction for that.\n\nArguments:\n1. \"hexstring\"    (string, required) The hex string of the raw transaction\n\nResult:\n{\n  \"hex\":       \"value\", (string)  The resulting raw transaction (hex-encoded string)\n  \"fee\":       n,         (numeric) The fee added to the transaction\n  \"changepos\": n          (numeric) The position of the added change output, or -1\n}\n\"hex\"             \n\nExamples:\n\nCreate a transaction with no inputs\n" +
    helpExampleCli(env, "createrawtransaction", "\"[]\" \"{\\\"myaddress\\\":0.01}\"") +
    "\nAdd sufficient unsigned inputs to meet the output value\n" +
    helpExampleCli(env, "fundrawtransaction", "\"rawtransactionhex\"") +
    "\nSign the transaction\n" +
    helpExampleCli(env, "signrawtransaction", "\"fundedtransactionhex\"") +
    "\nSend the transaction\n" +
    helpExampleCli(env, "sendrawtransaction", "\"signedtransactionhex\"");

export const signrawtransactionHelp = (env: HelpEnv): string =>
    "signrawtransaction \"hexstring\" ( [{\"txid\":\"id\",\"vout\":n,\"scriptPubKey\":\"hex\",\"redeemScript\":\"hex\"},...] [\"privatekey1\",...] sighashtype )\n\nSign inputs for raw transaction (serialized, hex-encoded).\nThe second optional argument (may be null) is an array of previous transaction outputs that\nthis transaction depends on but may not yet be in the block chain.\nThe third optional argument (may be null) is an array of base58-encoded private\nkeys that, if given, will be the only keys used to sign the transaction.\n" +
    helpRequiringPassphrase(env) +
    "\n\nArguments:\n1. \"hexstring\"     (string, required) The transaction hex string\n2. \"prevtxs\"       (string, optional) An json array of previous dependent transaction outputs\n     [               (json array of json objects, or 'null' if none provided)\n       {\n         \"txid\":\"id\",             (string, required) The transaction id\n         \"vout\":n,                  (numeric, required) The output number\n         \"scriptPubKey\": \"hex\",   (string, required) script key\n         \"redeemScript\": \"hex\",   (string, required for P2SH) redeem script\n         \"amount\": value            (numeric, required) The amount spent\n       }\n       ,...\n    ]\n3. \"privatekeys\"     (string, optional) A json array of base58-encoded private keys for signing\n    [                  (json array of strings, or 'null' if none provided)\n      \"privatekey\"   (string) private key in base58-encoding\n      ,...\n    ]\n4. \"sighashtype\"     (string, optional, default=ALL) The signature hash type. Must be one of\n       \"ALL\"\n       \"NONE\"\n       \"SINGLE\"\n       \"ALL|ANYONECANPAY\"\n       \"NONE|ANYONECANPAY\"\n       \"SINGLE|ANYONECANPAY\"\n5.  \"branchid\"       (string, optional) The hex representation of the consensus branch id to sign with. This can be used to force signing with consensus rules that are ahead of the node's current height.\n\nResult:\n{\n  \"hex\" : \"value\",           (string) The hex-encoded raw transaction with signature(s)\n  \"complete\" : true|false,   (boolean) If the transaction has a complete set of signatures\n  \"errors\" : [                 (json array of objects) Script verification errors (if there are any)\n    {\n      \"txid\" : \"hash\",           (string) The hash of the referenced, previous transaction\n      \"vout\" : n,                (numeric) The index of the output to spent and used as input\n      \"scriptSig\" : \"hex\",       (string) The hex-encoded signature script\n      \"sequence\" : n,            (numeric) Script sequence number\n      \"error\" : \"text\"           (string) Verification or signing error related to the input\n    }\n    ,...\n  ]\n}\n\nExamples:\n" +
    helpExampleCli(env, "signrawtransaction", "\"myhex\"") +
    helpExampleRpc(env, "signrawtransaction", "\"myhex\"");

export const getnewaddressHelp = (env: HelpEnv): string =>
    "getnewaddress ( \"account\" )\n\nReturns a new " +
    env.chainName +
    " address for receiving payments.\n\nArguments:\n1. \"account\"        (string, optional) DEPRECATED. If provided, it MUST be set to the empty string \"\" to represent the default account. Passing any other string will result in an error.\n\nResult:\n\"" +
    env.chainName +
    "_address\"    (string) The new " +
    env.chainName +
    " address\n\nExamples:\n" +
    helpExampleCli(env, "getnewaddress", "") +
    helpExampleRpc(env, "getnewaddress", "");

export const getaccountaddressHelp = (env: HelpEnv): string =>
    "getaccountaddress \"account\"\n\nDEPRECATED. Returns the current " +
    env.chainName +
    " address for receiving payments to this account.\n\nArguments:\n1. \"account\"       (string, required) MUST be set to the empty string \"\" to represent the default account. Passing any other string will result in an error.\n\nResult:\n\"" +
    env.chainName +
    "_address\"   (string) The account " +
    env.chainName +
    " address\n\nExamples:\n" +
    helpExampleCli(env, "getaccountaddress", "") +
    helpExampleCli(env, "getaccountaddress", "\"\"") +
    helpExampleCli(env, "getaccountaddress", "\"myaccount\"") +
    helpExampleRpc(env, "getaccountaddress", "\"myaccount\"");

export const validateaddressHelp = (env: HelpEnv): string =>
    "validateaddress \"komodoaddress\"\n\nReturn information about the given Komodo address.\n\nArguments:\n1. \"komodoaddress\"     (string, required) The Komodo address to validate\n\nResult:\n{\n  \"isvalid\" : true|false,         (boolean) If the address is valid or not. If not, this is the only property returned.\n  \"address\" : \"komodoaddress\",   (string) The Komodo address validated\n  \"scriptPubKey\" : \"hex\",       (string) The hex encoded scriptPubKey generated by the address\n  \"ismine\" : true|false,          (boolean) If the address is yours or not\n  \"isscript\" : true|false,        (boolean) If the key is a script\n  \"pubkey\" : \"publickeyhex\",    (string) The hex value of the raw public key\n  \"iscompressed\" : true|false,    (boolean) If the address is compressed\n  \"account\" : \"account\"         (string) DEPRECATED. The account associated with the address, \"\" is the default account\n}\n\nExamples:\n" +
    helpExampleCli(env, "validateaddress", "\"RTZMZHDFSTFQst8XmX2dR4DaH87cEUs3gC\"") +
    helpExampleRpc(env, "validateaddress", "\"RTZMZHDFSTFQst8XmX2dR4DaH87cEUs3gC\"");

export const importprivkeyHelp = (env: HelpEnv): string =>
    "importprivkey \"komodoprivkey\" ( \"label\" rescan height secret_key)\n\nAdds a private key (as returned by dumpprivkey) to your wallet.\n\nArguments:\n1. \"komodoprivkey\"   (string, required) The private key (see dumpprivkey)\n2. \"label\"            (string, optional, default=\"\") An optional label\n3. rescan               (boolean, optional, default=true) Rescan the wallet for transactions\n4. height               (integer, optional, default=0) start at block height?\n5. secret_key           (integer, optional, default=188) used to import WIFs of other coins\n\nNote: This call can take minutes to complete if rescan is true.\n\nExamples:\n\nDump a private key\n" +
    helpExampleCli(env, "dumpprivkey", "\"myaddress\"") +
    "\nImport the private key with rescan\n" +
    helpExampleCli(env, "importprivkey", "\"mykey\"") +
    "\nImport using a label and without rescan\n" +
    helpExampleCli(env, "importprivkey", "\"mykey\" \"testing\" false") +
    "\nAs a JSON-RPC call\n" +
    helpExampleRpc(env, "importprivkey", "\"mykey\", \"testing\", false") +
    "\nImport with rescan from a block height\n" +
    helpExampleCli(env, "importprivkey", "\"mykey\" \"testing\" true 1000") +
    "\nImport a BTC WIF with rescan\n" +
    helpExampleCli(env, "importprivkey", "\"BTCWIF\" \"testing\" true 0 128") +
    "\nImport a BTC WIF without rescan\n" +
    helpExampleCli(env, "importprivkey", "\"BTCWIF\" \"testing\" false 0 128") +
    "\nAs a JSON-RPC call\n" +
    helpExampleRpc(env, "importprivkey", "\"mykey\", \"testing\", true, 1000");

export const dumpprivkeyHelp = (env: HelpEnv): string =>
    "dumpprivkey \"t-addr\"\n\nReveals the private key corresponding to 't-addr'.\nThen the importprivkey can be used with this output\n\nArguments:\n1. \"t-addr\"   (string, required) The transparent address for the private key\n\nResult:\n\"key\"         (string) The private key\n\nExamples:\n" +
    helpExampleCli(env, "dumpprivkey", "\"myaddress\"") +
    helpExampleCli(env, "importprivkey", "\"mykey\"") +
    helpExampleRpc(env, "dumpprivkey", "\"myaddress\"");

export const convertpassphraseHelp = (env: HelpEnv): string =>
    "convertpassphrase \"agamapassphrase\"\n\nConverts Agama passphrase to a private key and WIF (for import with importprivkey).\n\nArguments:\n1. \"agamapassphrase\"   (string, required) Agama passphrase\n\nResult:\n\"agamapassphrase\": \"agamapassphrase\",   (string) Agama passphrase you entered\n\"address\": \"komodoaddress\",             (string) Address corresponding to your passphrase\n\"pubkey\": \"publickeyhex\",               (string) The hex value of the raw public key\n\"privkey\": \"privatekeyhex\",             (string) The hex value of the raw private key\n\"wif\": \"wif\"                            (string) The private key in WIF format to use with 'importprivkey'\n\nExamples:\n" +
    helpExampleCli(env, "convertpassphrase", "\"agamapassphrase\"") +
    helpExampleRpc(env, "convertpassphrase", "\"agamapassphrase\"");

export const getbalanceHelp = (env: HelpEnv): string =>
    "getbalance ( \"account\" minconf includeWatchonly )\n\nReturns the server's total available balance.\n\nArguments:\n1. \"account\"      (string, optional) DEPRECATED. If provided, it MUST be set to the empty string \"\" or to the string \"*\", either of which will give the total available balance. Passing any other string will result in an error.\n2. minconf          (numeric, optional, default=1) Only include transactions confirmed at least this many times.\n3. includeWatchonly (bool, optional, default=false) Also include balance in watchonly addresses (see 'importaddress')\n\nResult:\namount              (numeric) The total amount in " +
    env.chainName +
    " received for this account.\n\nExamples:\n\nThe total amount in the wallet\n" +
    helpExampleCli(env, "getbalance", "") +
    "\nThe total amount in the wallet at least 5 blocks confirmed\n" +
    helpExampleCli(env, "getbalance", "\"*\" 6") +
    "\nAs a json rpc call\n" +
    helpExampleRpc(env, "getbalance", "\"*\", 6");

export const listunspentHelp = (env: HelpEnv): string =>
    "listunspent ( minconf maxconf  [\"address\",...] )\n\nReturns array of unspent transaction outputs\nwith between minconf and maxconf (inclusive) confirmations.\nOptionally filter to only include txouts paid to specified addresses.\nResults are an array of Objects, each of which has:\n{txid, vout, scriptPubKey, amount, confirmations}\n\nArguments:\n1. minconf          (numeric, optional, default=1) The minimum confirmations to filter\n2. maxconf          (numeric, optional, default=9999999) The maximum confirmations to filter\n3. \"addresses\"    (string) A json array of " +
    env.chainName +
    " addresses to filter\n    [\n      \"address\"   (string) " +
    env.chainName +
    " address\n      ,...\n    ]\n\nResult\n[                   (array of json object)\n  {\n    \"txid\" : \"txid\",          (string) the transaction id \n    \"vout\" : n,               (numeric) the vout value\n    \"generated\" : true|false  (boolean) true if txout is a coinbase transaction output\n    \"address\" : \"address\",    (string) the Komodo address\n    \"account\" : \"account\",    (string) DEPRECATED. The associated account, or \"\" for the default account\n    \"scriptPubKey\" : \"key\",   (string) the script key\n    \"amount\" : x.xxx,         (numeric) the transaction amount in " +
    'KMD' +
    "\n    \"confirmations\" : n,      (numeric) The number of confirmations\n    \"redeemScript\" : n        (string) The redeemScript if scriptPubKey is P2SH\n    \"spendable\" : xxx         (bool) Whether we have the private keys to spend this output\n  }\n  ,...\n]\n\nExamples\n" +
    helpExampleCli(env, "listunspent", "") +
    helpExampleCli(env, "listunspent", "6 9999999 \"[\\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\\\",\\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\\\"]\"") +
    helpExampleRpc(env, "listunspent", "6, 9999999 \"[\\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\\\",\\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\\\"]\"");

export const sendtoaddressHelp = (env: HelpEnv): string =>
    "sendtoaddress \"" +
    env.chainName +
    "_address\" amount ( \"comment\" \"comment-to\" subtractfeefromamount )\n\nSend an amount to a given address. The amount is a real and is rounded to the nearest 0.00000001\n" +
    helpRequiringPassphrase(env) +
    "\nArguments:\n1. \"" +
    env.chainName +
    "_address\"  (string, required) The " +
    env.chainName +
    " address to send to.\n2. \"amount\"      (numeric, required) The amount in " +
    env.chainName +
    " to send. eg 0.1\n3. \"comment\"     (string, optional) A comment used to store what the transaction is for. \n                             This is not part of the transaction, just kept in your wallet.\n4. \"comment-to\"  (string, optional) A comment to store the name of the person or organization \n                             to which you're sending the transaction. This is not part of the \n                             transaction, just kept in your wallet.\n5. subtractfeefromamount  (boolean, optional, default=false) The fee will be deducted from the amount being sent.\n                             The recipient will receive less " +
    env.chainName +
    " than you enter in the amount field.\n\nResult:\n\"transactionid\"  (string) The transaction id.\n\nExamples:\n" +
    helpExampleCli(env, "sendtoaddress", "\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\" 0.1") +
    helpExampleCli(env, "sendtoaddress", "\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\" 0.1 \"donation\" \"seans outpost\"") +
    helpExampleCli(env, "sendtoaddress", "\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\" 0.1 \"\" \"\" true") +
    helpExampleRpc(env, "sendtoaddress", "\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\", 0.1, \"donation\", \"seans outpost\"");

export const sendmanyHelp = (env: HelpEnv): string =>
    "sendmany \"fromaccount\" {\"address\":amount,...} ( minconf \"comment\" [\"address\",...] )\n\nSend multiple times. Amounts are decimal numbers with at most 8 digits of precision." +
    helpRequiringPassphrase(env) +
    "\n\nArguments:\n1. \"fromaccount\"         (string, required) MUST be set to the empty string \"\" to represent the default account. Passing any other string will result in an error.\n2. \"amounts\"             (string, required) A json object with addresses and amounts\n    {\n      \"address\":amount   (numeric) The " +
    env.chainName +
    " address is the key, the numeric amount in " +
    env.chainName +
    " is the value\n      ,...\n    }\n3. minconf                 (numeric, optional, default=1) Only use the balance confirmed at least this many times.\n4. \"comment\"             (string, optional) A comment\n5. subtractfeefromamount   (string, optional) A json array with addresses.\n                           The fee will be equally deducted from the amount of each selected address.\n                           Those recipients will receive less " +
    env.chainName +
    " than you enter in their corresponding amount field.\n                           If no addresses are specified here, the sender pays the fee.\n    [\n      \"address\"            (string) Subtract fee from this address\n      ,...\n    ]\n\nResult:\n\"transactionid\"          (string) The transaction id for the send. Only 1 transaction is created regardless of \n                                    the number of addresses.\n\nExamples:\n\nSend two amounts to two different addresses:\n" +
    helpExampleCli(env, "sendmany", "\"\" \"{\\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPVMY\\\":0.01,\\\"RRyyejME7LRTuvdziWsXkAbSW1fdiohGwK\\\":0.02}\"") +
    "\nSend two amounts to two different addresses setting the confirmation and comment:\n" +
    helpExampleCli(env, "sendmany", "\"\" \"{\\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPVMY\\\":0.01,\\\"RRyyejME7LRTuvdziWsXkAbSW1fdiohGwK\\\":0.02}\" 6 \"testing\"") +
    "\nSend two amounts to two different addresses, subtract fee from amount:\n" +
    helpExampleCli(env, "sendmany", "\"\" \"{\\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPVMY\\\":0.01,\\\"RRyyejME7LRTuvdziWsXkAbSW1fdiohGwK\\\":0.02}\" 1 \"\" \"[\\\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPVMY\\\",\\\"RRyyejME7LRTuvdziWsXkAbSW1fdiohGwK\\\"]\"") +
    "\nAs a json rpc call\n" +
    helpExampleRpc(env, "sendmany", "\"\", {\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPVMY\":0.01,\"RRyyejME7LRTuvdziWsXkAbSW1fdiohGwK\":0.02}, 6, \"testing\"");

export const gettransactionHelp = (env: HelpEnv): string =>
    "gettransaction \"txid\" ( includeWatchonly )\n\nGet detailed information about in-wallet transaction <txid>\n\nArguments:\n1. \"txid\"    (string, required) The transaction id\n2. \"includeWatchonly\"    (bool, optional, default=false) Whether to include watchonly addresses in balance calculation and details[]\n\nResult:\n{\n  \"amount\" : x.xxx,        (numeric) The transaction amount in " +
    env.chainName +
    "\n  \"confirmations\" : n,     (numeric) The number of confirmations\n  \"blockhash\" : \"hash\",  (string) The block hash\n  \"blockindex\" : xx,       (numeric) The block index\n  \"blocktime\" : ttt,       (numeric) The time in seconds since epoch (1 Jan 1970 GMT)\n  \"txid\" : \"transactionid\",   (string) The transaction id.\n  \"time\" : ttt,            (numeric) The transaction time in seconds since epoch (1 Jan 1970 GMT)\n  \"timereceived\" : ttt,    (numeric) The time received in seconds since epoch (1 Jan 1970 GMT)\n  \"details\" : [\n    {\n      \"account\" : \"accountname\",  (string) DEPRECATED. The account name involved in the transaction, can be \"\" for the default account.\n      \"address\" : \"" +
    env.chainName +
    "_address\",   (string) The " +
    env.chainName +
    " address involved in the transaction\n      \"category\" : \"send|receive\",    (string) The category, either 'send' or 'receive'\n      \"amount\" : x.xxx                  (numeric) The amount in " +
    env.chainName +
    "\n      \"vout\" : n,                       (numeric) the vout value\n    }\n    ,...\n  ],\n  \"vjoinsplit\" : [\n    {\n      \"anchor\" : \"treestateref\",          (string) Merkle root of note commitment tree\n      \"nullifiers\" : [ string, ... ]      (string) Nullifiers of input notes\n      \"commitments\" : [ string, ... ]     (string) Note commitments for note outputs\n      \"macs\" : [ string, ... ]            (string) Message authentication tags\n      \"vpub_old\" : x.xxx                  (numeric) The amount removed from the transparent value pool\n      \"vpub_new\" : x.xxx,                 (numeric) The amount added to the transparent value pool\n    }\n    ,...\n  ],\n  \"hex\" : \"data\"         (string) Raw data for transaction\n}\n\nExamples:\n" +
    helpExampleCli(env, "gettransaction", "\"1075db55d416d3ca199f55b6084e2115b9345e16c5cf302fc80e9d5fbf5d48d\"") +
    helpExampleCli(env, "gettransaction", "\"1075db55d416d3ca199f55b6084e2115b9345e16c5cf302fc80e9d5fbf5d48d\" true") +
    helpExampleRpc(env, "gettransaction", "\"1075db55d416d3ca199f55b6084e2115b9345e16c5cf302fc80e9d5fbf5d48d\"");

export const listtransactionsHelp = (env: HelpEnv): string =>
    "listtransactions ( \"account\" count from includeWatchonly)\n\nReturns up to 'count' most recent transactions skipping the first 'from' transactions for account 'account'.\n\nArguments:\n1. \"account\"    (string, optional) DEPRECATED. The account name. Should be \"*\".\n2. count          (numeric, optional, default=10) The number of transactions to return\n3. from           (numeric, optional, default=0) The number of transactions to skip\n4. includeWatchonly (bool, optional, default=false) Include transactions to watchonly addresses (see 'importaddress')\n\nResult:\n[\n  {\n    \"account\":\"accountname\",       (string) DEPRECATED. The account name associated with the transaction. \n                                                It will be \"\" for the default account.\n    \"address\":\"" +
    env.chainName +
    "_address\",    (string) The " +
    env.chainName +
    " address of the transaction. Not present for \n                                                move transactions (category = move).\n    \"category\":\"send|receive|move\", (string) The transaction category. 'move' is a local (off blockchain)\n                                                transaction between accounts, and not associated with an address,\n                                                transaction id or block. 'send' and 'receive' transactions are \n                                                associated with an address, transaction id and block details\n    \"amount\": x.xxx,          (numeric) The amount in " +
    env.chainName +
    ". This is negative for the 'send' category, and for the\n                                         'move' category for moves outbound. It is positive for the 'receive' category,\n                                         and for the 'move' category for inbound funds.\n    \"vout\" : n,               (numeric) the vout value\n    \"fee\": x.xxx,             (numeric) The amount of the fee in " +
    env.chainName +
    ". This is negative and only available for the \n                                         'send' category of transactions.\n    \"confirmations\": n,       (numeric) The number of confirmations for the transaction. Available for 'send' and \n                                         'receive' category of transactions.\n    \"blockhash\": \"hashvalue\", (string) The block hash containing the transaction. Available for 'send' and 'receive'\n                                          category of transactions.\n    \"blockindex\": n,          (numeric) The block index containing the transaction. Available for 'send' and 'receive'\n                                          category of transactions.\n    \"txid\": \"transactionid\", (string) The transaction id. Available for 'send' and 'receive' category of transactions.\n    \"time\": xxx,              (numeric) The transaction time in seconds since epoch (midnight Jan 1 1970 GMT).\n    \"timereceived\": xxx,      (numeric) The time received in seconds since epoch (midnight Jan 1 1970 GMT). Available \n                                          for 'send' and 'receive' category of transactions.\n    \"comment\": \"...\",       (string) If a comment is associated with the transaction.\n    \"otheraccount\": \"accountname\",  (string) For the 'move' category of transactions, the account the funds came \n                                          from (for receiving funds, positive amounts), or went to (for sending funds,\n                                          negative amounts).\n    \"size\": n,                (numeric) Transaction size in bytes\n  }\n]\n\nExamples:\n\nList the most recent 10 transactions in the systems\n" +
    helpExampleCli(env, "listtransactions", "") +
    "\nList transactions 100 to 120\n" +
    helpExampleCli(env, "listtransactions", "\"*\" 20 100") +
    "\nAs a json rpc call\n" +
    helpExampleRpc(env, "listtransactions", "\"*\", 20, 100");

export const getwalletinfoHelp = (env: HelpEnv): string =>
    "getwalletinfo\nReturns an object containing various wallet state info.\n\nResult:\n{\n  \"walletversion\": xxxxx,     (numeric) the wallet version\n  \"balance\": xxxxxxx,         (numeric) the total confirmed balance of the wallet in " +
    env.chainName +
    "\n  \"unconfirmed_balance\": xxx, (numeric) the total unconfirmed balance of the wallet in " +
    env.chainName +
    "\n  \"immature_balance\": xxxxxx, (numeric) the total immature balance of the wallet in " +
    env.chainName +
    "\n  \"txcount\": xxxxxxx,         (numeric) the total number of transactions in the wallet\n  \"keypoololdest\": xxxxxx,    (numeric) the timestamp (seconds since GMT epoch) of the oldest pre-generated key in the key pool\n  \"keypoolsize\": xxxx,        (numeric) how many new keys are pre-generated\n  \"unlocked_until\": ttt,      (numeric) the timestamp in seconds since epoch (midnight Jan 1 1970 GMT) that the wallet is unlocked for transfers, or 0 if the wallet is locked\n  \"paytxfee\": x.xxxx,         (numeric) the transaction fee configuration, set in " +
    'KMD' +
    "/kB\n  \"seedfp\": \"uint256\",        (string) the BLAKE2b-256 hash of the HD seed\n}\n\nExamples:\n" +
    helpExampleCli(env, "getwalletinfo", "") +
    helpExampleRpc(env, "getwalletinfo", "");

export const setpubkeyHelp = (env: HelpEnv): string =>
    "setpubkey\n\nSets the -pubkey if the daemon was not started with it, if it was already set, it returns the pubkey, and its Raddress.\n\nArguments:\n1. \"pubkey\"         (string) pubkey to set.\n\nResult:\n  {\n    \"pubkey\" : \"pubkey\",     (string) The pubkey\n    \"ismine\" : \"true/false\",     (bool)\n    \"R-address\" : \"R address\",     (string) The pubkey\n  }\n\nExamples:\n" +
    helpExampleCli(env, "setpubkey", "02f7597468703c1c5c8465dd6d43acaae697df9df30bed21494d193412a1ea193e") +
    helpExampleRpc(env, "setpubkey", "02f7597468703c1c5c8465dd6d43acaae697df9df30bed21494d193412a1ea193e");

export const backupwalletHelp = (env: HelpEnv): string =>
    "backupwallet \"destination\"\n\nSafely copies wallet.dat to destination filename\n\nArguments:\n1. \"destination\"   (string, required) The destination filename, saved in the directory set by -exportdir option.\n\nResult:\n\"path\"             (string) The full path of the destination file\n\nExamples:\n" +
    helpExampleCli(env, "backupwallet", "\"backupdata\"") +
    helpExampleRpc(env, "backupwallet", "\"backupdata\"");

export const dumpwalletHelp = (env: HelpEnv): string =>
    "dumpwallet \"filename\"\n\nDumps taddr wallet keys in a human-readable format.  Overwriting an existing file is not permitted.\n\nArguments:\n1. \"filename\"    (string, required) The filename, saved in folder set by komodod -exportdir option\n\nResult:\n\"path\"           (string) The full path of the destination file\n\nExamples:\n" +
    helpExampleCli(env, "dumpwallet", "\"test\"") +
    helpExampleRpc(env, "dumpwallet", "\"test\"");

export const importwalletHelp = (env: HelpEnv): string =>
    "importwallet \"filename\"\n\nImports taddr keys from a wallet dump file (see dumpwallet).\n\nArguments:\n1. \"filename\"    (string, required) The wallet file\n\nExamples:\n\nDump the wallet\n" +
    helpExampleCli(env, "dumpwallet", "\"nameofbackup\"") +
    "\nImport the wallet\n" +
    helpExampleCli(env, "importwallet", "\"path/to/exportdir/nameofbackup\"") +
    "\nImport using the json rpc call\n" +
    helpExampleRpc(env, "importwallet", "\"path/to/exportdir/nameofbackup\"");

