import { S3ServiceException } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { IMAGE_SLOTS } from '../../../shared/domain/brand.ts';
import { createBrandSchema, updateBrandSchema } from '../../../shared/domain/brand-input.ts';
import { checkLibraryPath, MAX_PATH_BYTES } from '../../../shared/domain/library-path.ts';
import { uploadRequest } from '../../../shared/domain/requests.ts';
import { validate } from '../../../shared/domain/validation.ts';
import { MAX_PUBLIC_KEY_BYTES, publicObjectKey } from '../../../shared/files/brand-images.ts';
import { privateObjectKey } from '../../../shared/files/library.ts';
import { fileFault } from '../../../shared/files/s3-errors.ts';
import { LIMITS } from '../../../shared/limits.ts';
import { pathOfBytes } from '../../support/library-paths.ts';
import { refusal } from '../../support/validation.ts';

/**
 * The rules of a path in a team's file library, for the files endpoint (`path`) and the brand image
 * slots (`*_image_path`). The HTTP tests (test/functions/files/brand-images.services.test.ts) keep one escape per endpoint.
 */
const ESCAPES = [
  '../secret.png',
  'a/../../b.png',
  '/abs.png',
  'teams/1/x.png',
  'a\\b.png',
  'a//b.png',
  './a.png',
  'dir/',
];

describe('a library path', () => {
  it.each(ESCAPES)('refuses %s, which could leave the library', (path) => {
    expect(Object.keys(refusal(() => checkLibraryPath(path)).errors)).toEqual(['path']);
  });

  it('refuses a lone surrogate, which has no UTF-8 form', () => {
    expect(refusal(() => checkLibraryPath('logos/\ud800.png')).errors).toEqual({
      path: ['The path must be valid Unicode text.'],
    });
  });
});

const LARGEST_TEAM_ID = 10 ** LIMITS.idDigits - 1;
const bytes = (text: string) => Buffer.byteLength(text);

const NAME_MESSAGE = 'must not have a folder or file name greater than 255 bytes once UTF-8 encoded.';

describe('the names of a library path (at most 255 bytes each, what file systems hold)', () => {
  it.each([
    ['255 CJK characters (765 bytes)', '漢'.repeat(255)],
    ['100 emoji (400 bytes)', '😀'.repeat(100)],
    ['256 ASCII characters', 'a'.repeat(256)],
    ['86 CJK characters (258 bytes)', '漢'.repeat(86)],
  ])('refuses a file name of %s', (_kind, name) => {
    expect(refusal(() => checkLibraryPath(`logos/${name}`)).errors).toEqual({
      path: [`The path ${NAME_MESSAGE}`],
    });
  });

  it('refuses a folder name of 256 bytes as a file name', () => {
    expect(refusal(() => checkLibraryPath(`${'a'.repeat(256)}/logo.png`)).errors).toEqual({
      path: [`The path ${NAME_MESSAGE}`],
    });
  });

  it.each([
    ['255 ASCII characters', 'a'.repeat(255)],
    ['85 CJK characters (255 bytes)', '漢'.repeat(85)],
    ['63 emoji and 3 ASCII (255 bytes)', `${'😀'.repeat(63)}abc`],
  ])('accepts a folder and a file name of %s', (_kind, name) => {
    expect(bytes(name)).toBe(LIMITS.libraryNameBytes);
    expect(checkLibraryPath(`${name}/${name}`)).toBe(`${name}/${name}`);
  });
});

describe('the key of a library path (S3: 1,024 bytes with the team prefix)', () => {
  it('leaves room for the prefix of the largest team id: 1,002 bytes', () => {
    expect(MAX_PATH_BYTES).toBe(1002);
    expect(bytes(`teams/${LARGEST_TEAM_ID}/`)).toBe(LIMITS.libraryPrefixBytes);
  });

  it.each([
    ['ASCII', 'a'],
    ['CJK', '漢'],
    ['emoji', '😀'],
  ])(
    'accepts a path of %s names of exactly 1,002 bytes: the largest team key is 1,024 bytes',
    (_kind, char) => {
      const path = pathOfBytes(char, MAX_PATH_BYTES);
      expect(bytes(path)).toBe(MAX_PATH_BYTES);
      expect(bytes(privateObjectKey(LARGEST_TEAM_ID, path))).toBe(LIMITS.objectKeyBytes);
    },
  );

  it.each([
    ['ASCII', 'a'],
    ['CJK', '漢'],
    ['emoji', '😀'],
  ])('refuses a path of %s names one byte longer, though it would fit a small team id', (_kind, char) => {
    const path = pathOfBytes(char, MAX_PATH_BYTES + 1);
    // Fits S3 alone and with a one-digit team id's prefix; not with the largest team id's.
    expect(bytes(`teams/1/${path}`)).toBeLessThanOrEqual(LIMITS.objectKeyBytes);
    expect(refusal(() => checkLibraryPath(path)).errors).toEqual({
      path: ['The path must not be greater than 1002 bytes once UTF-8 encoded.'],
    });
  });

  it('refuses 1,025 characters by their bytes', () => {
    expect(Object.keys(refusal(() => checkLibraryPath('p'.repeat(1025))).errors)).toEqual(['path']);
  });
});

describe("a brand image's public key", () => {
  it('is at most 120 ASCII bytes for the largest team id and the longest path: within S3 whatever the path', () => {
    const path = pathOfBytes('a', MAX_PATH_BYTES);
    const file = { path, key: privateObjectKey(LARGEST_TEAM_ID, path), etag: '"0123"' };
    const key = publicObjectKey(LARGEST_TEAM_ID, file, '.webp');
    expect(key).toMatch(/^brands\/999999999999999\/[0-9a-f]{32}\/a{59}\.webp$/);
    expect(bytes(key)).toBe(MAX_PUBLIC_KEY_BYTES);
    expect(MAX_PUBLIC_KEY_BYTES).toBe(120);
    expect(MAX_PUBLIC_KEY_BYTES).toBeLessThan(LIMITS.objectKeyBytes);
  });

  it.each([
    ['evil.html', '.png', 'evil.png'],
    ['logos/photo.JPEG', '.jpg', 'photo.jpg'],
    ['archive.tar.gz', '.gif', 'archive.tar.gif'],
    ['no-extension', '.webp', 'no-extension.webp'],
    ['.png', '.png', 'image.png'],
    [`${'b'.repeat(100)}.html`, '.png', `${'b'.repeat(60)}.png`],
  ])('names %s holding a %s image by its type: %s', (path, extension, name) => {
    const key = publicObjectKey(1, { path, key: privateObjectKey(1, path), etag: '"1"' }, extension);
    expect(key.split('/').at(-1)).toBe(name);
  });

  it('keeps a file name of CJK or emoji to URL-safe ASCII', () => {
    const path = `${'漢'.repeat(85)}/${'😀'.repeat(62)}.png`;
    const key = publicObjectKey(1, { path, key: privateObjectKey(1, path), etag: undefined }, '.png');
    expect(key).toMatch(/^brands\/1\/[0-9a-f]{32}\/[A-Za-z0-9._-]+$/);
    expect(bytes(key)).toBe(key.length);
  });
});

describe('a brand image path', () => {
  it.each(ESCAPES)('refuses %s, which could leave the library, on create and update', (path) => {
    const created = refusal(() =>
      validate(createBrandSchema, { name: 'Escape', social_share_image_path: path }),
    );
    expect(Object.keys(created.errors)).toEqual(['social_share_image_path']);
    expect(created.errors.social_share_image_path?.[0]).toMatch(/^The social share image path /);
    const updated = refusal(() => validate(updateBrandSchema, { logo_square_image_path: path }));
    expect(Object.keys(updated.errors)).toEqual(['logo_square_image_path']);
  });
});

describe('every library path field of a request body', () => {
  const pathFields = (shape: object) => Object.keys(shape).filter((field) => /(^|_)path$/.test(field));

  it('is one of the image slots on a brand, `path` on an upload', () => {
    const slots = IMAGE_SLOTS.map((slot) => slot.path);
    expect(pathFields(createBrandSchema.shape)).toEqual(slots);
    expect(pathFields(updateBrandSchema.shape)).toEqual(slots);
    expect(pathFields(uploadRequest.shape)).toEqual(['path']);
  });

  it.each([
    ['255 CJK characters in a name', `logos/${'漢'.repeat(255)}`],
    ['100 emoji in a name', `${'😀'.repeat(100)}/a.png`],
    ['a 256-byte ASCII name', 'a'.repeat(256)],
    ['a key that fits alone but not with the team prefix', pathOfBytes('a', 1020)],
  ])('refuses %s, naming the field, on create, update and upload', (_kind, path) => {
    for (const field of pathFields(createBrandSchema.shape)) {
      const created = refusal(() => validate(createBrandSchema, { name: 'Long', [field]: path }));
      expect(Object.keys(created.errors)).toEqual([field]);
      const updated = refusal(() => validate(updateBrandSchema, { [field]: path }));
      expect(Object.keys(updated.errors)).toEqual([field]);
    }
    const upload = refusal(() => validate(uploadRequest, { path, content_type: 'image/png', size: 1 }));
    expect(Object.keys(upload.errors)).toEqual(['path']);
  });
});

/** An error as the SDK builds it from an S3 answer. */
const s3Error = (name: string, status: number) =>
  new S3ServiceException({
    name,
    message: `${name} (made here)`,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });

describe("S3's answers about a caller's file", () => {
  it.each([
    ['NoSuchKey', 404, 'missing'],
    ['NotFound', 404, 'missing'],
    ['KeyTooLongError', 400, 'refused'],
    ['InvalidObjectName', 400, 'refused'],
    ['InvalidArgument', 400, 'refused'],
    ['InvalidRequest', 400, 'refused'],
    ['EntityTooLarge', 400, 'refused'],
    ['PreconditionFailed', 412, 'changed'],
  ])('%s (%i) is the caller’s: %s', (name, status, fault) => {
    expect(fileFault(s3Error(name, status))).toEqual({ fault, code: name });
  });

  it.each([
    [400, 'BadRequest', 'refused'],
    [404, 'NotFound', 'missing'],
    [412, 'PreconditionFailed', 'changed'],
  ])(
    'a bodiless %i (a HEAD answer, which the SDK calls Unknown) is read by its status',
    (status, code, fault) => {
      expect(fileFault(s3Error('Unknown', status))).toEqual({ fault, code });
    },
  );

  it.each([
    ['SlowDown', 503],
    ['InternalError', 500],
    ['ServiceUnavailable', 503],
    ['Unknown', 500],
    ['AccessDenied', 403],
    ['NoSuchBucket', 404],
    ['InvalidAccessKeyId', 403],
  ])('%s (%i) is not the caller’s', (name, status) => {
    expect(fileFault(s3Error(name, status))).toBeUndefined();
  });

  it('nor is an error that is no S3 answer (a timeout, a connection refused)', () => {
    expect(fileFault(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' }))).toBeUndefined();
    expect(
      fileFault(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toBeUndefined();
  });
});
