import { test } from 'node:test';
import { memoryStorage } from '../../adapters/memory/index.js';
import { runStorageSuite } from '../../conformance/index.js';

runStorageSuite({ test, create: () => memoryStorage() });
