#!/usr/bin/env node
// `npx acnode-cli`: runs bin/acnode-cli.ts through tsx in this process.
import { register } from 'tsx/esm/api';

register();
await import('./acnode-cli.ts');
