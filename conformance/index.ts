export * from './ports/index.js';
export { runConformance, checkCatalogue, suiteVersion, contractVersion } from './run.js';
export type { ConformanceOptions, ConformanceResult, RequirementResult, RequirementStatus, CheckOutcome, ProgressEvent } from './run.js';
export { requirements, type Requirement } from './requirements.js';
export { fixtureNames, fixtureDescriptions, type Fixtures, type FixtureName, type Evidence } from './http/check.js';
export { createFixtureAccounts, conformanceCommandLine, type FixtureAccounts } from './fixture-accounts.js';
export { renderSummary, renderJunit, renderCatalogue } from './report.js';
