/**
 * What pages and routes of app/ read outside a procedure, named here so that app/ reaches the domain only
 * through the API layer (tests/repo/import-graph.test.ts): public data, or data the page has already scoped to the
 * signed-in person (an organization's own instances).
 */
export { publicJwks } from '../domain/jwt';
export { superadminExists } from '../domain/users';
export { orgInstanceUrls } from '../domain/support/instances';
