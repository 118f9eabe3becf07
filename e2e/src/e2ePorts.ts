/** The ports of the suite's own server (playwright.config.ts): HTTP, and the media port (UDP and TCP). */
export const E2E_PORT = Number(process.env.E2E_PORT || 18080);
/** E2E_RTC_PORT, or the port after E2E_PORT: runs with different E2E_PORTs do not share a media port. */
export const E2E_RTC_PORT = Number(process.env.E2E_RTC_PORT || E2E_PORT + 1);
