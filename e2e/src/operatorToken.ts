/**
 * The tokens of the server the end-to-end tests run against: the Playwright
 * config gives the server these values (OPERATOR_TOKEN, METRICS_TOKEN,
 * ROUTER_TOKEN), and tests send them on operator API calls.
 */
export const E2E_OPERATOR_TOKEN = process.env.OPERATOR_TOKEN || 'e2e-operator-token-not-secret';
export const E2E_METRICS_TOKEN = process.env.METRICS_TOKEN || 'e2e-metrics-token-not-secret';
export const E2E_ROUTER_TOKEN = process.env.ROUTER_TOKEN || 'e2e-router-token-not-secret';

export const operatorHeaders = (token = E2E_OPERATOR_TOKEN): Record<string, string> => ({ authorization: `Bearer ${token}` });
