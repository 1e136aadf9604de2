import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { clientTypes } from '../lib/openapi/client-types.ts';
import { ROOT } from './support/processes.ts';

describe('the typed client', () => {
  it('has the types openapi-typescript generates from the written document (run `npm run openapi`)', async () => {
    const document = readFileSync(`${ROOT}/shared/openapi/openapi.json`, 'utf8');
    expect(readFileSync(`${ROOT}/client/schema.d.ts`, 'utf8')).toBe(await clientTypes(document));
  });
});
