/** komodod's RPC error codes (src/rpc/protocol.h), named as there. */
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;
export const RPC_PARSE_ERROR = -32700;
export const RPC_MISC_ERROR = -1;
export const RPC_FORBIDDEN_BY_SAFE_MODE = -2;
export const RPC_TYPE_ERROR = -3;
export const RPC_WALLET_ERROR = -4;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_WALLET_INSUFFICIENT_FUNDS = -6;
export const RPC_OUT_OF_MEMORY = -7;
export const RPC_INVALID_PARAMETER = -8;
export const RPC_CLIENT_NOT_CONNECTED = -9;
export const RPC_CLIENT_IN_INITIAL_DOWNLOAD = -10;
export const RPC_WALLET_ACCOUNTS_UNSUPPORTED = -11;
export const RPC_WALLET_KEYPOOL_RAN_OUT = -12;
export const RPC_WALLET_UNLOCK_NEEDED = -13;
export const RPC_WALLET_PASSPHRASE_INCORRECT = -14;
export const RPC_WALLET_WRONG_ENC_STATE = -15;
export const RPC_WALLET_ENCRYPTION_FAILED = -16;
export const RPC_WALLET_ALREADY_UNLOCKED = -17;
export const RPC_DATABASE_ERROR = -20;
export const RPC_DESERIALIZATION_ERROR = -22;
export const RPC_CLIENT_NODE_ALREADY_ADDED = -23;
export const RPC_CLIENT_NODE_NOT_ADDED = -24;
export const RPC_VERIFY_ERROR = -25;
export const RPC_TRANSACTION_ERROR = RPC_VERIFY_ERROR;
export const RPC_VERIFY_REJECTED = -26;
export const RPC_TRANSACTION_REJECTED = RPC_VERIFY_REJECTED;
export const RPC_VERIFY_ALREADY_IN_CHAIN = -27;
export const RPC_TRANSACTION_ALREADY_IN_CHAIN = RPC_VERIFY_ALREADY_IN_CHAIN;
export const RPC_IN_WARMUP = -28;
export const RPC_CLIENT_NODE_NOT_CONNECTED = -29;
export const RPC_CLIENT_INVALID_IP_OR_SUBNET = -30;

/**
 * komodod's JSONRPCError(code, message): a method that throws one keeps its code. Any other thrown Error
 * is komodod's std::exception and becomes -1 with its message.
 */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}
