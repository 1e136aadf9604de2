import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  RELEASED_TEMPLATE_PATH,
  readReleasedTemplate,
  releasableTemplate,
} from '../lib/cdk/released-template.ts';
import { describeFinding, statefulChanges } from '../lib/cdk/stateful-guard.ts';

/**
 * `npm run release-template`: writes the production stack's template (cdk.json's defaults, normalized) to
 * lib/cdk/released/, the template test/lib/cdk/stateful-guard.stack.test.ts guards the stateful resources against. Run
 * it for a deliberate, planned change to one of them, and commit the file with the change. It first prints
 * the replacements and removals it accepts.
 */

// The released template is environment-agnostic, as the tests synthesize the stack: an account or region
// left in the shell (the CLI sets these for the app) would be written into it.
delete process.env.CDK_DEFAULT_ACCOUNT;
delete process.env.CDK_DEFAULT_REGION;

const template = releasableTemplate();
const accepted = existsSync(RELEASED_TEMPLATE_PATH) ? statefulChanges(readReleasedTemplate(), template) : [];
for (const finding of accepted) console.log(`accepted: ${describeFinding(finding)}`);
mkdirSync(dirname(RELEASED_TEMPLATE_PATH), { recursive: true });
writeFileSync(RELEASED_TEMPLATE_PATH, `${JSON.stringify(template, null, 2)}\n`);
console.log(`written: ${RELEASED_TEMPLATE_PATH}`);
