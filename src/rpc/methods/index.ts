import type { NodeServices } from '../../actors/services.js';
import type { RpcMethod } from '../table.js';
import { helpMethod } from '../table.js';
import { controlMethods } from './control.js';
import { miningMethods } from './mining.js';

/** Every method the node serves, by category module. */
export function nodeMethods(node: NodeServices): RpcMethod[] {
  return [helpMethod, ...controlMethods(node), ...miningMethods(node)];
}
