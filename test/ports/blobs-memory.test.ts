import { test } from 'node:test';
import { memoryBlobs } from '../../adapters/memory/index.js';
import { runBlobSuite } from '../../conformance/index.js';

runBlobSuite({ test, create: () => memoryBlobs() });
