/** Every black-box check, in the order they run. */
import type { Check } from './check.js';
import { assetChecks } from './checks-assets.js';
import { generalChecks, rateLimitChecks } from './checks-general.js';
import { mcpChecks } from './checks-mcp.js';
import { uploadChecks } from './checks-uploads.js';
import { webhookChecks } from './checks-webhooks.js';
import { versionChecks } from './checks-versions.js';

export const allChecks: Check[] = [...generalChecks, ...assetChecks, ...uploadChecks, ...versionChecks, ...webhookChecks, ...mcpChecks, ...rateLimitChecks];
