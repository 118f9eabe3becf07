import { pino, type Logger } from 'pino';

/** Logs go to stderr so that tools printing JSON on stdout (testbed) stay clean. */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: undefined }, pino.destination(2));
}

export type { Logger };
