import { helpExampleCli, helpExampleRpc, type HelpEnv } from '../table.js';

/* komodod's help texts of the accounts family, byte for byte (src/wallet/rpcwallet.cpp at 0adeeab), generated from the C++
 * string literals: chainName.ToString() is the -ac_name, HelpRequiringPassphrase() empty (the wallet is not encrypted). */

export const getaccountHelp = (env: HelpEnv): string =>
    "getaccount \"" +
    env.chainName +
    "_address\"\n" +
    "\nDEPRECATED. Returns the account associated with the given address.\n" +
    "\nArguments:\n" +
    "1. \"" +
    env.chainName +
    "_address\"  (string, required) The " +
    env.chainName +
    " address for account lookup.\n" +
    "\nResult:\n" +
    "\"accountname\"        (string) the account address\n" +
    "\nExamples:\n" +
    helpExampleCli(env, "getaccount", "\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\"") +
    helpExampleRpc(env, "getaccount", "\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\"");

export const setaccountHelp = (env: HelpEnv): string =>
    "setaccount \"" +
    env.chainName +
    "_address\" \"account\"\n" +
    "\nDEPRECATED. Sets the account associated with the given address.\n" +
    "\nArguments:\n" +
    "1. \"" +
    env.chainName +
    "_address\"  (string, required) The " +
    env.chainName +
    " address to be associated with an account.\n" +
    "2. \"account\"         (string, required) MUST be set to the empty string \"\" to represent the default account. Passing any other string will result in an error.\n" +
    "\nExamples:\n" +
    helpExampleCli(env, "setaccount", "\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\" \"tabby\"") +
    helpExampleRpc(env, "setaccount", "\"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\", \"tabby\"");

export const getaddressesbyaccountHelp = (env: HelpEnv): string =>
    "getaddressesbyaccount \"account\"\n" +
    "\nDEPRECATED. Returns the list of addresses for the given account.\n" +
    "\nArguments:\n" +
    "1. \"account\"  (string, required) MUST be set to the empty string \"\" to represent the default account. Passing any other string will result in an error.\n" +
    "\nResult:\n" +
    "[                     (json array of string)\n" +
    "  \"" +
    env.chainName +
    "_address\"  (string) a " +
    env.chainName +
    " address associated with the given account\n" +
    "  ,...\n" +
    "]\n" +
    "\nExamples:\n" +
    helpExampleCli(env, "getaddressesbyaccount", "\"tabby\"") +
    helpExampleRpc(env, "getaddressesbyaccount", "\"tabby\"");

export const listaccountsHelp = (env: HelpEnv): string =>
    "listaccounts ( minconf includeWatchonly)\n" +
    "\nDEPRECATED. Returns Object that has account names as keys, account balances as values.\n" +
    "\nArguments:\n" +
    "1. minconf          (numeric, optional, default=1) Only include transactions with at least this many confirmations\n" +
    "2. includeWatchonly (bool, optional, default=false) Include balances in watchonly addresses (see 'importaddress')\n" +
    "\nResult:\n" +
    "{                      (json object where keys are account names, and values are numeric balances\n" +
    "  \"account\": x.xxx,  (numeric) The property name is the account name, and the value is the total balance for the account.\n" +
    "  ...\n" +
    "}\n" +
    "\nExamples:\n" +
    "\nList account balances where there at least 1 confirmation\n" +
    helpExampleCli(env, "listaccounts", "") +
    "\nList account balances including zero confirmation transactions\n" +
    helpExampleCli(env, "listaccounts", "0") +
    "\nList account balances for 6 or more confirmations\n" +
    helpExampleCli(env, "listaccounts", "6") +
    "\nAs json rpc call\n" +
    helpExampleRpc(env, "listaccounts", "6");

export const getreceivedbyaccountHelp = (env: HelpEnv): string =>
    "getreceivedbyaccount \"account\" ( minconf )\n" +
    "\nDEPRECATED. Returns the total amount received by addresses with <account> in transactions with at least [minconf] confirmations.\n" +
    "\nArguments:\n" +
    "1. \"account\"      (string, required) MUST be set to the empty string \"\" to represent the default account. Passing any other string will result in an error.\n" +
    "2. minconf          (numeric, optional, default=1) Only include transactions confirmed at least this many times.\n" +
    "\nResult:\n" +
    "amount              (numeric) The total amount in " +
    env.chainName +
    " received for this account.\n" +
    "\nExamples:\n" +
    "\nAmount received by the default account with at least 1 confirmation\n" +
    helpExampleCli(env, "getreceivedbyaccount", "\"\"") +
    "\nAmount received at the tabby account including unconfirmed amounts with zero confirmations\n" +
    helpExampleCli(env, "getreceivedbyaccount", "\"tabby\" 0") +
    "\nThe amount with at least 6 confirmation, very safe\n" +
    helpExampleCli(env, "getreceivedbyaccount", "\"tabby\" 6") +
    "\nAs a json rpc call\n" +
    helpExampleRpc(env, "getreceivedbyaccount", "\"tabby\", 6");

export const listreceivedbyaddressHelp = (env: HelpEnv): string =>
    "listreceivedbyaddress ( minconf includeempty includeWatchonly)\n" +
    "\nList balances by receiving address.\n" +
    "\nArguments:\n" +
    "1. minconf       (numeric, optional, default=1) The minimum number of confirmations before payments are included.\n" +
    "2. includeempty  (numeric, optional, default=false) Whether to include addresses that haven't received any payments.\n" +
    "3. includeWatchonly (bool, optional, default=false) Whether to include watchonly addresses (see 'importaddress').\n" +
    "\nResult:\n" +
    "[\n" +
    "  {\n" +
    "    \"involvesWatchonly\" : true,        (bool) Only returned if imported addresses were involved in transaction\n" +
    "    \"address\" : \"receivingaddress\",  (string) The receiving address\n" +
    "    \"account\" : \"accountname\",       (string) DEPRECATED. The account of the receiving address. The default account is \"\".\n" +
    "    \"amount\" : x.xxx,                  (numeric) The total amount in " +
    env.chainName +
    " received by the address\n" +
    "    \"confirmations\" : n                (numeric) The number of confirmations of the most recent transaction included\n" +
    "  }\n" +
    "  ,...\n" +
    "]\n" +
    "\nExamples:\n" +
    helpExampleCli(env, "listreceivedbyaddress", "") +
    helpExampleCli(env, "listreceivedbyaddress", "6 true") +
    helpExampleRpc(env, "listreceivedbyaddress", "6, true, true");

export const listreceivedbyaccountHelp = (env: HelpEnv): string =>
    "listreceivedbyaccount ( minconf includeempty includeWatchonly)\n" +
    "\nDEPRECATED. List balances by account.\n" +
    "\nArguments:\n" +
    "1. minconf      (numeric, optional, default=1) The minimum number of confirmations before payments are included.\n" +
    "2. includeempty (boolean, optional, default=false) Whether to include accounts that haven't received any payments.\n" +
    "3. includeWatchonly (bool, optional, default=false) Whether to include watchonly addresses (see 'importaddress').\n" +
    "\nResult:\n" +
    "[\n" +
    "  {\n" +
    "    \"involvesWatchonly\" : true,   (bool) Only returned if imported addresses were involved in transaction\n" +
    "    \"account\" : \"accountname\",  (string) The account name of the receiving account\n" +
    "    \"amount\" : x.xxx,             (numeric) The total amount received by addresses with this account\n" +
    "    \"confirmations\" : n           (numeric) The number of confirmations of the most recent transaction included\n" +
    "  }\n" +
    "  ,...\n" +
    "]\n" +
    "\nExamples:\n" +
    helpExampleCli(env, "listreceivedbyaccount", "") +
    helpExampleCli(env, "listreceivedbyaccount", "6 true") +
    helpExampleRpc(env, "listreceivedbyaccount", "6, true, true");

export const moveHelp = (env: HelpEnv): string =>
    "move \"fromaccount\" \"toaccount\" amount ( minconf \"comment\" )\n" +
    "\nDEPRECATED. Move a specified amount from one account in your wallet to another.\n" +
    "\nArguments:\n" +
    "1. \"fromaccount\"   (string, required) MUST be set to the empty string \"\" to represent the default account. Passing any other string will result in an error.\n" +
    "2. \"toaccount\"     (string, required) MUST be set to the empty string \"\" to represent the default account. Passing any other string will result in an error.\n" +
    "3. amount            (numeric) Quantity of " +
    env.chainName +
    " to move between accounts.\n" +
    "4. minconf           (numeric, optional, default=1) Only use funds with at least this many confirmations.\n" +
    "5. \"comment\"       (string, optional) An optional comment, stored in the wallet only.\n" +
    "\nResult:\n" +
    "true|false           (boolean) true if successful.\n" +
    "\nExamples:\n" +
    "\nMove 0.01 " +
    env.chainName +
    " from the default account to the account named tabby\n" +
    helpExampleCli(env, "move", "\"\" \"tabby\" 0.01") +
    "\nMove 0.01 " +
    env.chainName +
    " timotei to akiko with a comment and funds have 6 confirmations\n" +
    helpExampleCli(env, "move", "\"timotei\" \"akiko\" 0.01 6 \"happy birthday!\"") +
    "\nAs a json rpc call\n" +
    helpExampleRpc(env, "move", "\"timotei\", \"akiko\", 0.01, 6, \"happy birthday!\"");

export const sendfromHelp = (env: HelpEnv): string =>
    "sendfrom \"fromaccount\" \"to" +
    env.chainName +
    "address\" amount ( minconf \"comment\" \"comment-to\" )\n" +
    "\nDEPRECATED (use sendtoaddress). Sent an amount from an account to a " +
    env.chainName +
    " address.\n" +
    "The amount is a real and is rounded to the nearest 0.00000001." +
    '' +
    "\n" +
    "\nArguments:\n" +
    "1. \"fromaccount\"       (string, required) MUST be set to the empty string \"\" to represent the default account. Passing any other string will result in an error.\n" +
    "2. \"to" +
    env.chainName +
    "address\"  (string, required) The " +
    env.chainName +
    " address to send funds to.\n" +
    "3. amount                (numeric, required) The amount in " +
    env.chainName +
    " (transaction fee is added on top).\n" +
    "4. minconf               (numeric, optional, default=1) Only use funds with at least this many confirmations.\n" +
    "5. \"comment\"           (string, optional) A comment used to store what the transaction is for. \n" +
    "                                     This is not part of the transaction, just kept in your wallet.\n" +
    "6. \"comment-to\"        (string, optional) An optional comment to store the name of the person or organization \n" +
    "                                     to which you're sending the transaction. This is not part of the transaction, \n" +
    "                                     it is just kept in your wallet.\n" +
    "\nResult:\n" +
    "\"transactionid\"        (string) The transaction id.\n" +
    "\nExamples:\n" +
    "\nSend 0.01 " +
    env.chainName +
    " from the default account to the address, must have at least 1 confirmation\n" +
    helpExampleCli(env, "sendfrom", "\"\" \"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\" 0.01") +
    "\nSend 0.01 from the tabby account to the given address, funds must have at least 6 confirmations\n" +
    helpExampleCli(env, "sendfrom", "\"tabby\" \"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\" 0.01 6 \"donation\" \"seans outpost\"") +
    "\nAs a json rpc call\n" +
    helpExampleRpc(env, "sendfrom", "\"tabby\", \"RD6GgnrMpPaTSMn8vai6yiGA7mN4QGPV\", 0.01, 6, \"donation\", \"seans outpost\"");

export const listaddressgroupingsHelp = (env: HelpEnv): string =>
    "listaddressgroupings\n" +
    "\nLists groups of addresses which have had their common ownership\n" +
    "made public by common use as inputs or as the resulting change\n" +
    "in past transactions\n" +
    "\nResult:\n" +
    "[\n" +
    "  [\n" +
    "    [\n" +
    "      \"" +
    env.chainName +
    " address\",     (string) The " +
    env.chainName +
    " address\n" +
    "      amount,                 (numeric) The amount in " +
    env.chainName +
    "\n" +
    "      \"account\"             (string, optional) The account (DEPRECATED)\n" +
    "    ]\n" +
    "    ,...\n" +
    "  ]\n" +
    "  ,...\n" +
    "]\n" +
    "\nExamples:\n" +
    helpExampleCli(env, "listaddressgroupings", "") +
    helpExampleRpc(env, "listaddressgroupings", "");

