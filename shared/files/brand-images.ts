import { createHash } from 'node:crypto';
import { CopyObjectCommand, GetObjectCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { config } from '../config.ts';
import { IMAGE_SLOTS, type ImagePathField, type ImageUrlField } from '../domain/brand.ts';
import { ValidationError } from '../domain/errors.ts';
import { brandImagePrefix, publicUrl } from '../domain/public-urls.ts';
import { LIMITS } from '../limits.ts';
import { describeError, logger } from '../telemetry.ts';
import { checkImageStructure, ImageFault } from './image-structure.ts';
import { IMAGE_TYPE_NAMES, type ImageType, mediaType, sniffImageType } from './image-types.ts';
import { privateObjectKey } from './library.ts';
import { s3 } from './s3.ts';
import { callerFileCall, type FileRefusal, fileFault, fileFaultMessage } from './s3-errors.ts';

/**
 * Brand images given in the path form: files of the team's private library, copied to the public library
 * under `brands/`. Each file is judged first, with one ranged GetObject (its declared type, its size, its
 * ETag and its bytes up to the largest limit of the slots naming it, in one call): it must be within its
 * slot's size (LIMITS.brandImageBytes), a PNG, JPEG, GIF or WebP by its bytes (image-types.ts) declared as
 * what it is, and exactly one well-formed image of that format, whole (image-structure.ts); else a 422
 * naming the field and nothing is copied. The copy's name ends with the extension of the type its bytes
 * are, whatever the library's file is called. The copy is made only after the brand write succeeded, so a
 * request refused for any reason (another team's brand, a missing one, a failed If-Match, a quota, a
 * field) publishes nothing: the public key is derived from the source file and its version (ETag), so the
 * write can store it before the copy exists. The copy is conditioned on that ETag: the public file is
 * exactly the file judged. When the copy fails after the write, the write is undone (`publish`) and the
 * caller gets the copy's error. A public URL never changes content (mails already sent show it); a copy no
 * brand names any longer is removed after LIMITS.orphanedImageDays (orphaned-images.ts). The URL handed
 * back is the one a client would send; the brand stores it as the copy's key and renders it on read
 * (public-urls.ts).
 */
type ImageInput = Partial<Record<ImageUrlField | ImagePathField, string | null>>;

interface CheckedFile {
  path: string;
  key: string;
  contentType: string;
  etag: string | undefined;
  /** The whole file's bytes. */
  size: number;
  /** Its bytes read: all of them, unless it is larger than every slot naming it allows. */
  bytes: Uint8Array;
}

/** A file judged fit for the public library: where it goes and the type it is served with. */
interface PendingCopy {
  file: CheckedFile;
  publicKey: string;
  type: ImageType;
  fields: ImagePathField[];
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

/** Cache-Control of a public copy: its URL never changes content. */
export const PUBLIC_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The brand input with its images in the URL form, and the copies that make those URLs work. */
export interface CheckedImages<T> {
  input: Omit<T, ImagePathField>;
  /**
   * Makes the public copies, after the brand write. When a copy fails, `undo` (the write's undoing) runs
   * first and the copy's error is thrown: a 422 naming the fields when S3 refuses the caller's file (it
   * changed or went away since it was judged), else the outage. No copy, no write.
   */
  publish(undo: () => Promise<void>): Promise<void>;
}

/**
 * Replaces the path form of each slot by the URL form (the path wins over a URL given for the same slot)
 * after judging every file, and returns the copies to make once the brand is written. What S3 refuses
 * about a file is a 422 naming the fields that name it (s3-errors.ts), not an outage.
 */
export async function checkImagePaths<T extends ImageInput>(
  teamId: number,
  input: T,
): Promise<CheckedImages<T>> {
  const output: Record<string, unknown> = { ...input };
  for (const slot of IMAGE_SLOTS) delete output[slot.path];
  const slots = IMAGE_SLOTS.filter((slot) => typeof input[slot.path] === 'string');
  const paths = [...new Set(slots.map((slot) => input[slot.path] as string))];
  const files = new Map(
    await Promise.all(
      paths.map(
        async (path) => [path, await checkFile(teamId, path, readLimit(slots, input, path))] as const,
      ),
    ),
  );

  const errors: Record<string, string[]> = {};
  const copies = new Map<string, PendingCopy>();
  for (const slot of slots) {
    const file = files.get(input[slot.path] as string) as CheckedFile | FileRefusal;
    if ('fault' in file) {
      errors[slot.path] = [fileFaultMessage(slot.path, file)];
      continue;
    }
    const judged = judge(slot.path, slot.url, file);
    if (Array.isArray(judged)) {
      errors[slot.path] = judged;
      continue;
    }
    const copy = copies.get(file.path) ?? {
      file,
      publicKey: publicObjectKey(teamId, file, judged.extension),
      type: judged,
      fields: [],
    };
    copy.fields.push(slot.path);
    copies.set(file.path, copy);
    output[slot.url] = publicUrl(copy.publicKey);
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  return {
    input: output as Omit<T, ImagePathField>,
    publish: async (undo) => {
      if (copies.size === 0) return;
      const results = await Promise.allSettled(
        [...copies.values()].map((copy) => callerFileCall(copy.fields, () => copyToPublic(copy))),
      );
      const failed = results.find((result) => result.status === 'rejected');
      if (!failed) return;
      try {
        await undo();
      } catch (error) {
        // Both stores failing: the brand names a copy that is not there, until it is written again.
        logger().error('brand write not undone after a failed image copy', describeError(error));
      }
      throw mergedRefusals(results) ?? failed.reason;
    },
  };
}

/** Every 422 of the copies as one (each names its fields); undefined when one failed otherwise. */
function mergedRefusals(results: PromiseSettledResult<unknown>[]): ValidationError | undefined {
  const errors: Record<string, string[]> = {};
  for (const result of results) {
    if (result.status === 'fulfilled') continue;
    if (!(result.reason instanceof ValidationError)) return undefined;
    Object.assign(errors, result.reason.errors);
  }
  return new ValidationError(errors);
}

/**
 * The most of a file worth reading: the largest limit of the slots naming it. A larger file is refused by
 * its size, and the ranged GET's Content-Range still tells that size.
 */
function readLimit(
  slots: ReadonlyArray<(typeof IMAGE_SLOTS)[number]>,
  input: ImageInput,
  path: string,
): number {
  return Math.max(
    ...slots.filter((slot) => input[slot.path] === path).map((slot) => LIMITS.brandImageBytes[slot.url]),
  );
}

/** The type the file is, or why it cannot fill the slot (each reason a message). */
function judge(field: ImagePathField, slot: ImageUrlField, file: CheckedFile): ImageType | string[] {
  const the = `The ${field.replaceAll('_', ' ')} field`;
  if (file.size === 0) return [`${the} names an empty file.`];
  const declared = mediaType(file.contentType);
  if (!declared.startsWith('image/')) {
    return [`${the} must name an image file (this one is ${file.contentType || 'untyped'}).`];
  }
  const messages: string[] = [];
  const limit = LIMITS.brandImageBytes[slot];
  if (file.size > limit) {
    messages.push(
      `${the} must name a file of at most ${limit} bytes (${limit / 1024} KiB) for the ${slot.replaceAll('_', ' ')} (this one has ${file.size}).`,
    );
  }
  const actual = sniffImageType(file.bytes);
  if (declared === 'image/svg+xml') {
    messages.push(`${the} must name a ${IMAGE_TYPE_NAMES} image: SVG is not accepted (it can carry script).`);
  } else if (!actual) {
    messages.push(`${the} must name a ${IMAGE_TYPE_NAMES} image (the file's bytes are none of them).`);
  } else if (!actual.declaredAs.includes(declared)) {
    messages.push(
      `${the} names a ${actual.name} image uploaded as ${declared}: upload it again as ${actual.type}, under a new path.`,
    );
  }
  if (messages.length > 0 || !actual) return messages;
  // Within the slot's limit, so read whole.
  const fault = structureFault(file.bytes, actual);
  return fault ? [`${the} ${fault}`] : actual;
}

/** Each file's structure is walked once, however many slots name it. */
const structureFaults = new WeakMap<Uint8Array, string | undefined>();

/** What is wrong with the file as an image of its type, as the end of a message; undefined if nothing. */
function structureFault(bytes: Uint8Array, type: ImageType): string | undefined {
  if (!structureFaults.has(bytes)) structureFaults.set(bytes, walkedFault(bytes, type));
  return structureFaults.get(bytes);
}

function walkedFault(bytes: Uint8Array, type: ImageType): string | undefined {
  try {
    checkImageStructure(bytes, type.name);
    return undefined;
  } catch (error) {
    if (!(error instanceof ImageFault)) throw error;
    return error.kind === 'markup'
      ? `names a ${type.name} image with ${error.reason}: export it again without text metadata.`
      : `names a file that is not a well-formed ${type.name}: ${error.reason}.`;
  }
}

/**
 * The file's declared type, size, version and bytes up to `limit` (one ranged GET: the whole file when it
 * fits), or how S3 refused it.
 */
async function checkFile(teamId: number, path: string, limit: number): Promise<CheckedFile | FileRefusal> {
  const key = privateObjectKey(teamId, path);
  try {
    const answer = await s3().send(
      new GetObjectCommand({
        Bucket: config.privateBucket(),
        Key: key,
        Range: `bytes=0-${limit - 1}`,
      }),
    );
    const bytes = answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array();
    // `bytes 0-<last>/<size>`: the whole file's size after the slash.
    const total = Number(answer.ContentRange?.split('/')[1]);
    return {
      path,
      key,
      contentType: answer.ContentType ?? '',
      etag: answer.ETag,
      size: Number.isSafeInteger(total) ? total : (answer.ContentLength ?? bytes.length),
      bytes: bytes.subarray(0, limit),
    };
  } catch (error) {
    // S3 answers a range of an empty file so: it exists, and has no bytes.
    if (error instanceof S3ServiceException && error.name === 'InvalidRange') {
      return { path, key, contentType: '', etag: undefined, size: 0, bytes: new Uint8Array() };
    }
    const refusal = fileFault(error);
    if (refusal) return refusal;
    throw error;
  }
}

async function copyToPublic({ file, publicKey, type }: PendingCopy): Promise<void> {
  await s3().send(
    new CopyObjectCommand({
      Bucket: config.publicBucket(),
      Key: publicKey,
      CopySource: `${config.privateBucket()}/${file.key.split('/').map(encodeURIComponent).join('/')}`,
      CopySourceIfMatch: file.etag,
      MetadataDirective: 'REPLACE',
      // The type its bytes are, whatever it was uploaded as (they agree, or it was refused).
      ContentType: type.type,
      CacheControl: PUBLIC_CACHE_CONTROL,
      // Tags are the source's (a library file has none): a copy made again is no longer marked orphaned.
    }),
  );
}

/**
 * Where a file version is copied to: derived from its key and ETag, its name cut to fit the URL and ending
 * with the extension of its type (`evil.html` holding a PNG is published as `evil.png`).
 */
export function publicObjectKey(
  teamId: number,
  file: Pick<CheckedFile, 'path' | 'key' | 'etag'>,
  extension: string,
): string {
  const version = createHash('sha256')
    .update(`${file.key}\n${file.etag}`)
    .digest('hex')
    .slice(0, VERSION_LENGTH);
  const prefix = `${brandImagePrefix(teamId)}${version}/`;
  const room = MAX_URL_LENGTH - config.publicBaseUrl().length - 1 - prefix.length;
  return prefix + publicFileName(file.path, extension, Math.min(LIMITS.publicFileNameLength, room));
}

/**
 * The file's name without its extension, reduced to URL-safe characters and cut so that with `extension`
 * it keeps the URL within 255 characters.
 */
function publicFileName(path: string, extension: string, maxLength: number): string {
  const name = path.split('/').at(-1) ?? '';
  const dot = name.lastIndexOf('.');
  const stem = (dot >= 0 ? name.slice(0, dot) : name).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '');
  return (stem || 'image').slice(0, Math.max(1, maxLength - extension.length)) + extension;
}
