/**
 * The message envelope every service actor speaks (defined in src/machines/messages.ts, which the
 * service machine shares), re-exported for the actors and the RPC layer, with the node's services as
 * the RPC layer sees them. Each actor's requests, replies and notices are in its own protocol.ts.
 */
export {
  ServiceFailure,
  toServiceError,
  noSuchOp,
  type AnyProtocol,
  type Notice,
  type Op,
  type OpenProtocol,
  type Protocol,
  type Reply,
  type ReplyOf,
  type Request,
  type RequestEvent,
  type RequestOf,
  type ServiceError,
} from '../machines/messages.js';
export type { Asker, AskReceiver } from './ask.js';
export type { NodeServices } from './services.js';
