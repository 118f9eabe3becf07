import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './src/chromium';
import { E2E_PORT as PORT, E2E_RTC_PORT } from './src/e2ePorts';
import { e2eStateDir } from './src/e2eStateDir';
import { E2E_METRICS_TOKEN, E2E_OPERATOR_TOKEN, E2E_ROUTER_TOKEN } from './src/operatorToken';

export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  // Media tests share two cores with the server, FFmpeg and mediasoup: one at a time.
  workers: 1,
  fullyParallel: false,
  timeout: 120_000,
  reporter: [['list']],
  globalTeardown: './src/e2eStateDir.ts',
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    headless: true,
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
  },
  webServer: {
    command: 'npm run start -w server --silent',
    cwd: '..',
    url: `http://127.0.0.1:${PORT}/api/health`,
    // Viewers start at the stream's full rate (MKC clamps the initial rate to it): these tests exercise
    // the data path on an unconstrained loopback; rate control is tested over the bottleneck (bottleneck.spec.ts).
    env: {
      PORT: String(PORT),
      RTC_PORT: String(E2E_RTC_PORT),
      // One worker, so every viewer's media leaves E2E_RTC_PORT, the port the specs capture and filter.
      MEDIA_WORKERS: '1',
      RTC_LISTEN_IP: '127.0.0.1',
      LOG_LEVEL: 'warn',
      OPERATOR_TOKEN: E2E_OPERATOR_TOKEN,
      METRICS_TOKEN: E2E_METRICS_TOKEN,
      ROUTER_TOKEN: E2E_ROUTER_TOKEN,
      MKC_INITIAL_KBPS: '100000',
      // The specs send many wrong tokens on purpose from this one address; the lock-out itself is tested on a server of
      // its own (server/src/security.test.ts).
      AUTH_FAILURES_PER_MINUTE: '10000',
      STATE_DIR: e2eStateDir(),
    },
    reuseExistingServer: false,
    // SIGTERM lets the server remove its nftables table.
    gracefulShutdown: { signal: 'SIGTERM', timeout: 5000 },
    timeout: 60_000,
    stdout: 'ignore',
    stderr: 'pipe',
  },
});
