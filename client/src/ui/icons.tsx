/** The control bar's icons: 24-unit SVG paths drawn in the text color. */

const PATHS = {
  play: 'M8 5.5v13l10.5-6.5z',
  pause: 'M7 5h3.5v14H7zM13.5 5H17v14h-3.5z',
  volume: 'M4 9.5h3.5L12 5.5v13l-4.5-4H4zM15 8.8a4.5 4.5 0 0 1 0 6.4M17.3 6.5a7.7 7.7 0 0 1 0 11',
  muted: 'M4 9.5h3.5L12 5.5v13l-4.5-4H4zM15.5 9.5l5 5M20.5 9.5l-5 5',
  fullscreen: 'M4.5 9.5v-5h5M14.5 4.5h5v5M19.5 14.5v5h-5M9.5 19.5h-5v-5',
  exitFullscreen: 'M9.5 4.5v5h-5M19.5 9.5h-5v-5M14.5 19.5v-5h5M4.5 14.5h5v5',
  quality: 'M4 18.5h16M6.5 15V11M10.5 15V8M14.5 15V10M18.5 15V6',
  settings: 'M5 7h14M5 12h14M5 17h14M9 5v4M15 10v4M8 15v4',
} as const;

export type IconName = keyof typeof PATHS;

/** Filled for the solid shapes (play, pause), stroked for the line drawings. */
export function Icon({ name }: { name: IconName }) {
  const solid = name === 'play' || name === 'pause';
  return (
    <svg className="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path d={PATHS[name]} fill={solid ? 'currentColor' : 'none'} stroke={solid ? 'none' : 'currentColor'} strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
