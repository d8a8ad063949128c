/**
 * `marketkit/bindings/node`, by role: the server binding (server/: the listener, serve(), the
 * request and response conversions), the ports' Node adapters (ports/: webhook sender, hashing,
 * OpenTelemetry tracing), the client's Node helpers (client/: file sources, the resume store, a
 * streaming fetch) and the API reference page's files (reference/).
 */
export type { ConnectionLimits } from '../limits.js';
export { defaultLimits } from '../limits.js';

export { nodeListener, type ListenerOptions, type NodeListener } from './server/listener.js';
export { serve, type RunningServer, type ServeOptions } from './server/serve.js';

export { nodeWebhookSender, type NodeWebhookSenderOptions } from './ports/webhook-sender.js';
export { nodeHashing } from './ports/hashing.js';
export { openTelemetryTracing, type OpenTelemetryTracingOptions } from './ports/opentelemetry.js';

export { fileSource, type FileSource } from './client/file-source.js';
export { defaultResumeFile, fileResumeStore } from './client/resume-store.js';
export { nodeFetch } from './client/streaming-fetch.js';

export { nodeApiReference } from './reference/reference-assets.js';
