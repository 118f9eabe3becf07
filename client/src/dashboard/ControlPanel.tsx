/** The controller gains new viewers start with; the server rejects values outside the stable ranges and says why. */
import { useState, type FormEvent } from 'react';
import type { ControllerGains, ControlSettingsInfo } from '@pels/shared/protocol/operator';

const FIELDS: Array<{ key: keyof ControllerGains; label: string; title: string }> = [
  { key: 'alphaKbps', label: 'α kb/s', title: 'MKC additive increase per step (> 0)' },
  { key: 'beta', label: 'β', title: 'MKC decrease gain, stable in (0, 2)' },
  { key: 'sigma', label: 'σ', title: 'gamma controller gain, stable in (0, 2)' },
  { key: 'pThr', label: 'p_thr', title: 'target red loss, in (0, 1]' },
];

export function ControlPanel({ control, onApply }: { control: ControlSettingsInfo; onApply(gains: Partial<ControllerGains>): Promise<boolean> }) {
  // Only what the operator typed: untouched fields follow the server's values.
  const [edits, setEdits] = useState<Partial<Record<keyof ControllerGains, string>>>({});
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const update = Object.fromEntries(Object.entries(edits).map(([k, v]) => [k, Number(v)]));
    if (await onApply(update)) setEdits({});
  };
  return (
    <section className="panel">
      <h2>Controller</h2>
      <form className="inline-form" onSubmit={(e) => void submit(e)}>
        {FIELDS.map((f) => (
          <label key={f.key} title={f.title}>
            {f.label}{' '}
            <input
              name={f.key}
              inputMode="decimal"
              size={6}
              value={edits[f.key] ?? String(control.gains[f.key])}
              onChange={(e) => setEdits({ ...edits, [f.key]: e.target.value })}
            />
          </label>
        ))}
        <button type="submit" disabled={Object.keys(edits).length === 0}>
          Apply
        </button>
      </form>
      <p className="hint">Applies to viewers that join after the change; a viewer keeps the gains it joined with (disconnect it to move it over).</p>
    </section>
  );
}
