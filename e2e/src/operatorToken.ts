/**
 * The operator token of the server the end-to-end tests run against: the
 * Playwright config gives the server this value (OPERATOR_TOKEN), and tests
 * send it on operator API calls.
 */
export const E2E_OPERATOR_TOKEN = process.env.OPERATOR_TOKEN || 'e2e-operator-token-not-secret';

export const operatorHeaders = (token = E2E_OPERATOR_TOKEN): Record<string, string> => ({ authorization: `Bearer ${token}` });
