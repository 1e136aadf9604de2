import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { config } from '../shared/config.ts';
import { dynamo } from '../shared/data/dynamo.ts';
import { s3 } from '../shared/files/s3.ts';
import { laneOf } from './support/lanes.ts';
import { ROOT } from './support/processes.ts';

/** The lanes of vitest.config.ts: every test file is in exactly one, the one support/lanes.ts says. */
const testFiles = readdirSync(join(ROOT, 'test'), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && /\.(test|spec)\.[cm]?[jt]sx?$/.test(entry.name))
  .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
  .sort();

describe('the test lanes', () => {
  it('take every test file once, in the lane support/lanes.ts gives it', () => {
    const listed = JSON.parse(
      execFileSync(
        process.execPath,
        [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'list', '--filesOnly', '--json'],
        {
          cwd: ROOT,
          encoding: 'utf8',
        },
      ),
    ) as Array<{ file: string; projectName: string }>;
    const lanes = listed
      .map(({ file, projectName }) => [relative(ROOT, file), projectName])
      .sort(([a], [b]) => ((a as string) < (b as string) ? -1 : 1));
    expect(lanes).toEqual(testFiles.map((file) => [file, laneOf(file)]));
  });

  it('refuse a unit test file DynamoDB and S3 at once, naming the lane to use', async () => {
    const refusal = /lane without services: move the file to the services lane/;
    await expect(
      dynamo().send(new GetCommand({ TableName: config.tableName(), Key: { pk: 'p', sk: 's' } })),
    ).rejects.toThrow(refusal);
    await expect(s3().send(new HeadBucketCommand({ Bucket: config.privateBucket() }))).rejects.toThrow(
      refusal,
    );
  });
});
