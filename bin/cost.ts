import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { readSettings } from '../lib/cdk/settings.ts';
import { costTable } from '../lib/cost/table.ts';

/**
 * `npm run cost [-- -c key=value ...]`: the itemized cost per million API requests and per million webhook
 * deliveries at the settings the stack reads (cdk.json's context, and `-c` overrides as `cdk` takes them).
 */
const ROOT = resolve(import.meta.dirname, '..');
const context = JSON.parse(readFileSync(resolve(ROOT, 'cdk.json'), 'utf8')).context as Record<
  string,
  unknown
>;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i] === '-c' || args[i] === '--context' ? args[++i] : undefined;
  const [key, ...value] = (arg ?? '').split('=');
  if (!key || !value.length) {
    console.error('usage: npm run cost -- [-c key=value ...]');
    process.exit(2);
  }
  context[key] = value.join('=');
}
process.stdout.write(costTable(readSettings(new App({ context }).node)));
