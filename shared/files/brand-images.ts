import { createHash } from 'node:crypto';
import { CopyObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { IMAGE_SLOTS, type ImagePathField, type ImageUrlField } from '../domain/brand-input.ts';
import { ValidationError } from '../http/errors.ts';
import { LIMITS } from '../limits.ts';
import { privateObjectKey } from './library.ts';
import { brandImagePrefix, publicUrl } from './public-urls.ts';
import { s3 } from './s3.ts';
import { callerFileCall, type FileRefusal, fileFault, fileFaultMessage } from './s3-errors.ts';

/**
 * Brand images given in the path form: files of the team's private library, copied to the public library
 * under `brands/`. The public key is derived from the source file and its version (ETag), so a public URL
 * never changes content (mails already sent show it), and a repeat (a retry, two racing requests with one
 * Idempotency-Key, a brand write that failed and is tried again) writes the same object instead of a new
 * one. Copies are never deleted: brands that use the same file version share one. The URL handed back is
 * the one a client would send; the brand stores it as the copy's key and renders it on read (public-urls.ts).
 */
type ImageInput = Partial<Record<ImageUrlField | ImagePathField, string | null>>;

interface CheckedFile {
  path: string;
  key: string;
  contentType: string;
  etag: string | undefined;
}

const MAX_URL_LENGTH = LIMITS.textLength;
/** Hex digits of a public copy's version (a SHA-256 of the source key and ETag). */
const VERSION_LENGTH = 32;
/**
 * The public key, `brands/<team id>/<version>/<file name>`, is ASCII and at most 7 + 15 + 1 + 32 + 1 + 64
 * = 120 bytes whatever the path: every path the library holds has a public key within S3's limit.
 */
export const MAX_PUBLIC_KEY_BYTES =
  'brands/'.length + LIMITS.idDigits + 1 + VERSION_LENGTH + 1 + LIMITS.publicFileNameLength;

/**
 * Replaces the path form of each slot by the URL form (the path wins over a URL given for the same slot).
 * All files are checked first (HeadObject: it exists, its Content-Type is image/*), so a bad path is a
 * 422 naming its field and nothing is copied; then the copies run in parallel, each conditioned on the
 * checked ETag so the public file is exactly the file that was checked. What S3 refuses about a file (a
 * check or a copy) is a 422 naming the fields that name it (s3-errors.ts), not an outage.
 */
export async function promoteImagePaths<T extends ImageInput>(
  teamId: number,
  input: T,
): Promise<Omit<T, ImagePathField>> {
  const output: Record<string, unknown> = { ...input };
  for (const slot of IMAGE_SLOTS) delete output[slot.path];
  const slots = IMAGE_SLOTS.filter((slot) => typeof input[slot.path] === 'string');
  const paths = [...new Set(slots.map((slot) => input[slot.path] as string))];
  const files = new Map(
    await Promise.all(paths.map(async (path) => [path, await checkFile(teamId, path)] as const)),
  );

  const errors: Record<string, string[]> = {};
  for (const slot of slots) {
    const file = files.get(input[slot.path] as string) as CheckedFile | FileRefusal;
    if ('fault' in file) errors[slot.path] = [fileFaultMessage(slot.path, file)];
    else if (!file.contentType.startsWith('image/')) {
      const the = `The ${slot.path.replaceAll('_', ' ')} field`;
      errors[slot.path] = [`${the} must name an image file (this one is ${file.contentType || 'untyped'}).`];
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  const checked = [...files.values()].filter((file): file is CheckedFile => !('fault' in file));
  const urls = new Map(
    await Promise.all(
      checked.map(async (file) => {
        const fields = slots.filter((slot) => input[slot.path] === file.path).map((slot) => slot.path);
        return [file.path, await callerFileCall(fields, () => copyToPublic(teamId, file))] as const;
      }),
    ),
  );
  for (const slot of slots) output[slot.url] = urls.get(input[slot.path] as string);
  return output as Omit<T, ImagePathField>;
}

/** The file's type and version, or how S3 refused it (no such file, or a key it cannot hold). */
async function checkFile(teamId: number, path: string): Promise<CheckedFile | FileRefusal> {
  const key = privateObjectKey(teamId, path);
  try {
    const head = await s3().send(new HeadObjectCommand({ Bucket: config.privateBucket(), Key: key }));
    return { path, key, contentType: head.ContentType ?? '', etag: head.ETag };
  } catch (error) {
    const refusal = fileFault(error);
    if (refusal) return refusal;
    throw error;
  }
}

async function copyToPublic(teamId: number, file: CheckedFile): Promise<string> {
  const key = publicObjectKey(teamId, file);
  await s3().send(
    new CopyObjectCommand({
      Bucket: config.publicBucket(),
      Key: key,
      CopySource: `${config.privateBucket()}/${file.key.split('/').map(encodeURIComponent).join('/')}`,
      CopySourceIfMatch: file.etag,
      MetadataDirective: 'REPLACE',
      ContentType: file.contentType,
      CacheControl: 'public, max-age=31536000, immutable',
    }),
  );
  return publicUrl(key);
}

/** Where a file version is copied to: derived from its key and ETag, its name cut to fit the URL. */
export function publicObjectKey(teamId: number, file: Pick<CheckedFile, 'path' | 'key' | 'etag'>): string {
  const version = createHash('sha256')
    .update(`${file.key}\n${file.etag}`)
    .digest('hex')
    .slice(0, VERSION_LENGTH);
  const prefix = `${brandImagePrefix(teamId)}${version}/`;
  const room = MAX_URL_LENGTH - config.publicBaseUrl().length - 1 - prefix.length;
  return prefix + publicFileName(file.path, Math.min(LIMITS.publicFileNameLength, room));
}

/** The file's name reduced to URL-safe characters and a length that keeps the URL within 255 characters. */
function publicFileName(path: string, maxLength: number): string {
  const name = (path.split('/').at(-1) ?? '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
  if (name.length <= maxLength) return name || 'image';
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : '';
  return name.slice(0, Math.max(1, maxLength - extension.length)) + extension;
}
