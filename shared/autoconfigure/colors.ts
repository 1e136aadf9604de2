import type { Candidate, Sourced } from './provenance.ts';

/** Brand colours as create-brand stores them: `#rrggbb`, lowercase. */

// A common subset of CSS named colours; theme-color values in the wild are almost always hex or rgb().
const NAMED_COLORS: Record<string, string> = {
  black: '#000000',
  white: '#ffffff',
  gray: '#808080',
  grey: '#808080',
  silver: '#c0c0c0',
  darkgray: '#a9a9a9',
  darkgrey: '#a9a9a9',
  lightgray: '#d3d3d3',
  lightgrey: '#d3d3d3',
  dimgray: '#696969',
  dimgrey: '#696969',
  whitesmoke: '#f5f5f5',
  red: '#ff0000',
  darkred: '#8b0000',
  crimson: '#dc143c',
  firebrick: '#b22222',
  maroon: '#800000',
  tomato: '#ff6347',
  coral: '#ff7f50',
  salmon: '#fa8072',
  orange: '#ffa500',
  darkorange: '#ff8c00',
  orangered: '#ff4500',
  gold: '#ffd700',
  yellow: '#ffff00',
  khaki: '#f0e68c',
  olive: '#808000',
  lime: '#00ff00',
  limegreen: '#32cd32',
  green: '#008000',
  darkgreen: '#006400',
  forestgreen: '#228b22',
  seagreen: '#2e8b57',
  teal: '#008080',
  darkcyan: '#008b8b',
  aqua: '#00ffff',
  cyan: '#00ffff',
  turquoise: '#40e0d0',
  skyblue: '#87ceeb',
  steelblue: '#4682b4',
  royalblue: '#4169e1',
  dodgerblue: '#1e90ff',
  blue: '#0000ff',
  mediumblue: '#0000cd',
  darkblue: '#00008b',
  navy: '#000080',
  midnightblue: '#191970',
  indigo: '#4b0082',
  purple: '#800080',
  rebeccapurple: '#663399',
  violet: '#ee82ee',
  orchid: '#da70d6',
  fuchsia: '#ff00ff',
  magenta: '#ff00ff',
  pink: '#ffc0cb',
  hotpink: '#ff69b4',
  deeppink: '#ff1493',
  brown: '#a52a2a',
  chocolate: '#d2691e',
  sienna: '#a0522d',
  tan: '#d2b48c',
  beige: '#f5f5dc',
  ivory: '#fffff0',
};

/** `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()` or a named colour → `#rrggbb`; anything else → null. */
export function normaliseColor(value: string): string | null {
  const text = value.trim().toLowerCase();
  const named = NAMED_COLORS[text];
  if (named !== undefined) return named;
  const hex = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(text)?.[1];
  if (hex !== undefined) {
    const rgb =
      hex.length <= 4 ? [...hex.slice(0, 3)].map((digit) => digit + digit).join('') : hex.slice(0, 6);
    return `#${rgb}`;
  }
  return rgbFunction(text);
}

function rgbFunction(text: string): string | null {
  // No whitespace pattern before the arguments': two patterns over the same run of spaces backtrack quadratically.
  const args = /^rgba?\(([^)]*)\)$/.exec(text)?.[1]?.trimStart();
  if (args === undefined) return null;
  const channels = args
    .split(/[\s,/]+/)
    .slice(0, 3)
    .map((arg) => (arg.endsWith('%') ? (Number.parseFloat(arg) * 255) / 100 : Number.parseFloat(arg)));
  if (channels.length !== 3 || channels.some((channel) => !Number.isFinite(channel))) return null;
  return `#${channels.map((channel) => toHexByte(channel)).join('')}`;
}

function toHexByte(channel: number): string {
  return Math.round(Math.min(255, Math.max(0, channel)))
    .toString(16)
    .padStart(2, '0');
}

/**
 * Picks primary and secondary from colours in priority order. Black, white and greys say little about a brand, so
 * chromatic colours go first (keeping their order); the secondary must differ from the primary. Each keeps the
 * provenance of its first candidate.
 */
export function pickBrandColors(candidates: readonly Candidate[]): {
  primary: Sourced<string> | null;
  secondary: Sourced<string> | null;
} {
  const byColor = new Map<string, Sourced<string>>();
  for (const { value, source, confidence } of candidates) {
    const color = normaliseColor(value ?? '');
    if (color !== null && !byColor.has(color)) byColor.set(color, { value: color, source, confidence });
  }
  const colors = [...byColor.values()];
  const isGrey = (color: Sourced<string>) => isAchromatic(color.value);
  const ranked = [...colors.filter((color) => !isGrey(color)), ...colors.filter(isGrey)];
  return { primary: ranked[0] ?? null, secondary: ranked[1] ?? null };
}

// Channels within this distance of each other read as grey (GitHub's #1e2327 is a near-black).
const GREY_CHROMA = 16;

function isAchromatic(color: string): boolean {
  const channels = [1, 3, 5].map((start) => Number.parseInt(color.slice(start, start + 2), 16));
  return Math.max(...channels) - Math.min(...channels) <= GREY_CHROMA;
}
