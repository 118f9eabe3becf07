/** Axis ticks: "nice" steps of 1, 2 or 5 times a power of ten, or decades on a log axis. */

export function niceTicks(min: number, max: number, target = 6): number[] {
  if (!(max > min)) return [min];
  const rough = (max - min) / target;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step) ticks.push(roundTo(v, step));
  return ticks;
}

export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); 10 ** e <= max * (1 + 1e-9); e++) if (10 ** e >= min * (1 - 1e-9)) ticks.push(10 ** e);
  return ticks;
}

/** A domain that starts and ends on nice ticks. */
export function niceDomain(min: number, max: number): [number, number] {
  if (min === max) return min === 0 ? [0, 1] : [Math.min(0, min), Math.max(0, max) * 1.1 || 1];
  const ticks = niceTicks(min, max);
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : max - min;
  return [Math.floor(min / step + 1e-9) * step, Math.ceil(max / step - 1e-9) * step];
}

export function formatTick(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return v.toExponential(0).replace('e+', 'e');
  return String(Number(v.toPrecision(6)));
}

/** Removes floating-point dust such as 0.30000000000000004. */
function roundTo(v: number, step: number): number {
  const decimals = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  return Number(v.toFixed(decimals));
}
