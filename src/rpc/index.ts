/** The JSON-RPC transport: server, method table, JSON values, param readers and errors. */
export { createRpcServer, rpcEndpoints, splitHostPort, MAX_BODY_SIZE } from './server.js';
export type { RpcServer, RpcServerOptions, Endpoint } from './server.js';
export { RpcTable, helpMethod, helpExampleCli, helpExampleRpc, toRpcError } from './table.js';
export type { RpcMethod, RpcContext, HelpEnv } from './table.js';
export { handleRpcBody, httpStatusForCode } from './envelope.js';
export type { RpcReply } from './envelope.js';
export * from './errors.js';
export { JsonNumber, JsonObject, Amount, jsonTypeOf } from './json-value.js';
export type { JsonValue, JsonOut, JsonOutObject, JsonTypeName } from './json-value.js';
export { parseJson, JsonParseError } from './json-read.js';
export { writeJson, formatDouble, escapeJsonString } from './json-write.js';
export * from './params.js';
export { amountFromValue, valueFromAmount } from './amount.js';
export { AllowList, Subnet, parseAddress } from '../chain/p2p/subnet.js';
export { BasicAuth, decodeBase64Lenient } from './auth.js';
