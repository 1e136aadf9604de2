import type { Settings } from '../cdk/settings.ts';
import { costLines, monthlyLines } from './model.ts';
import { PRICES_AS_OF } from './prices.ts';

const dollars = (usd: number) => `$${usd.toFixed(usd !== 0 && Math.abs(usd) < 0.01 ? 4 : 2)}`;

/** The cost tables `npm run cost` prints and docs/cost.md shows (Markdown). */
export function costTable(settings: Settings): string {
  const lines = costLines(settings);
  const total = (key: 'perMillionRequests' | 'perMillionDeliveries') =>
    lines.reduce((sum, line) => sum + line[key], 0);
  const rows = [
    '| item | per million API requests | per million webhook deliveries | counted as |',
    '| ---- | -----------------------: | -----------------------------: | ---------- |',
    ...lines.map(
      (line) =>
        `| ${line.item} | ${dollars(line.perMillionRequests)} | ${dollars(line.perMillionDeliveries)} | ${line.basis} |`,
    ),
    `| **total** | **${dollars(total('perMillionRequests'))}** | **${dollars(total('perMillionDeliveries'))}** | |`,
    '',
    '| a month, whatever the traffic | USD | counted as |',
    '| ----------------------------- | --: | ---------- |',
    ...monthlyLines(settings).map((line) => `| ${line.item} | ${dollars(line.usd)} | ${line.basis} |`),
    '',
    `us-east-1 list prices as of ${PRICES_AS_OF} (lib/cost/prices.ts, each with its page); assumptions: lib/cost/assumptions.ts.`,
  ];
  return `${rows.join('\n')}\n`;
}
