#!/usr/bin/env node
// `npx acnoded`: runs bin/acnoded.ts through tsx in this process.
import { register } from 'tsx/esm/api';

register();
await import('./acnoded.ts');
