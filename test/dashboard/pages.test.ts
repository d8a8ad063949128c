/**
 * The dashboard's pages over HTTP as a browser sends them (docs/dashboard.md, "Tests"), one process
 * for the four groups (each starts its own server on memory storage): the seller's listing pages
 * (pages/listings.ts), the moderators' and operators' pages (pages/moderation.ts), the webhook and
 * profile pages (pages/webhooks-profile.ts), and hostile text on every page and SVG never served as
 * SVG (pages/hostile-text.ts). One file for the runner: a process and a load of the core, not four.
 */
import './pages/listings.js';
import './pages/moderation.js';
import './pages/webhooks-profile.js';
import './pages/hostile-text.js';
