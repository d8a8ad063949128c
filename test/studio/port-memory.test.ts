import { test } from 'node:test';
import { memoryStudio } from '../../adapters/memory/index.js';
import { runStudioSuite } from '../../conformance/ports/index.js';

runStudioSuite({ test, create: () => memoryStudio() });
