/**
 * Zod probes `new Function` once to decide whether to compile its parsers.
 * The server's Content-Security-Policy has no 'unsafe-eval': a browser refuses
 * the probe and reports it as a violation. The player's entry point imports
 * this first, so zod interprets its schemas and never tries.
 */
import { z } from 'zod';

z.config({ jitless: true });
