/** PELS packet colors, most important first (paper section 4). */
export const COLORS = ['green', 'yellow', 'red'] as const;
export type Color = (typeof COLORS)[number];

/** DSCP code points marked on each color: AF41, AF42, AF43 (RFC 2597 drop precedence). */
export const DSCP: Readonly<Record<Color, number>> = { green: 34, yellow: 36, red: 38 };

/** Best-effort flows mark every packet alike: the default class (CS0), so a PELS router cannot favour any of their packets. */
export const BEST_EFFORT_DSCP = 0;
