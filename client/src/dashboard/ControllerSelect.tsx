/** Picks a rate controller by name (a viewer's, or a stream's default for its next viewers). */
import { RATE_CONTROLLER_NAMES, type RateControllerName } from '@pels/shared/rate/names';

export function ControllerSelect({ value, title, onChange }: { value: RateControllerName; title: string; onChange(controller: RateControllerName): void }) {
  return (
    <select data-action="controller" title={title} value={value} onChange={(e) => onChange(e.target.value as RateControllerName)}>
      {RATE_CONTROLLER_NAMES.map((n) => (
        <option key={n} value={n}>
          {n}
        </option>
      ))}
    </select>
  );
}
