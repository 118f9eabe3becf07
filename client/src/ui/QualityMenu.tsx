/** The quality menu: Auto, or one of the stream's renditions held whatever the rate (qualityMenu.ts). */
import { useEffect, useRef, useState } from 'react';
import type { RenditionChoice, StreamInfo } from '@pels/shared/protocol/signaling';
import { qualityButtonLabel, qualityOptions } from '../player/qualityMenu';
import { Icon } from './icons';

interface Props {
  renditions: StreamInfo['renditions'];
  choice: RenditionChoice;
  /** The rendition of the frames decoded now, once there are any. */
  playing: number | undefined;
  onChoose(choice: RenditionChoice): void;
}

export function QualityMenu({ renditions, choice, playing, onChoose }: Props) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  // Closes on a click elsewhere and on Escape, as menus do.
  useEffect(() => {
    if (!open) return;
    const onPointer = (e: PointerEvent) => {
      if (!box.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);
  const options = qualityOptions(renditions);
  if (options.length === 0) return null;
  return (
    <div className="quality-menu" ref={box}>
      <button
        type="button"
        className="ctl ctl-text"
        aria-haspopup="menu"
        aria-expanded={open}
        title="Quality"
        data-testid="quality-button"
        onClick={() => setOpen(!open)}
      >
        <Icon name="settings" />
        <span className="ctl-label">{qualityButtonLabel(choice, renditions, playing)}</span>
      </button>
      {open && (
        <div className="quality-options" role="menu" aria-label="Quality" data-testid="quality-menu">
          {options.map((o) => (
            <button
              type="button"
              role="menuitemradio"
              aria-checked={o.choice === choice}
              key={String(o.choice)}
              data-choice={o.choice}
              onClick={() => {
                setOpen(false);
                onChoose(o.choice);
              }}
            >
              <span className="qo-check" aria-hidden="true">
                {o.choice === choice ? '✓' : ''}
              </span>
              <span className="qo-label">{o.label}</span>
              <span className="qo-detail">{o.detail}</span>
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
