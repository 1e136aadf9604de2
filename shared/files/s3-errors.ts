import { S3ServiceException } from '@aws-sdk/client-s3';
import { ValidationError } from '../domain/errors.ts';

/**
 * What S3 answers about the key or the object a caller named is the caller's to fix: a 422 naming the
 * field, never our 503. Only these codes are: throttling, S3's 5xx and an unreachable S3 stay outages
 * (503, shared/aws.ts), and what can only be our own doing (NoSuchBucket, AccessDenied: a deployment's
 * configuration) stays a logged 500. Every S3 call about a caller's file goes through here.
 */
export type FileFault = 'missing' | 'refused' | 'changed';

/** How S3 refused a caller's file, and S3's code for it. */
export interface FileRefusal {
  fault: FileFault;
  code: string;
}

const FAULTS: Readonly<Record<string, FileFault>> = {
  // No such object: GetObject, or CopyObject's source (it may go between the check and the copy).
  NoSuchKey: 'missing',
  // HeadObject's 404: an answer to a HEAD has no body, so the SDK names the error by its status.
  NotFound: 'missing',
  // The key: over S3's 1,024 bytes, or a name a store refuses (S3-compatible stores say InvalidObjectName).
  KeyTooLongError: 'refused',
  InvalidObjectName: 'refused',
  // A request S3 finds invalid for the object it names: e.g. a copy source over S3's 5 GB copy limit, an
  // object too large, a content type S3 refuses. The other arguments of the library's calls are ours and
  // constant (buckets, directives, cache control), so what varies, and what S3 can refuse, is the caller's.
  InvalidArgument: 'refused',
  InvalidRequest: 'refused',
  EntityTooLarge: 'refused',
  // A HEAD's 400, which has no body (S3 answers a key over 1,024 bytes so): the key is all a HEAD names.
  BadRequest: 'refused',
  // CopySourceIfMatch failed: the file was replaced between its check and its copy.
  PreconditionFailed: 'changed',
};

/** What the SDK calls an error S3 answered without a body (a HEAD's), by status. */
const BODILESS: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  404: 'NotFound',
  412: 'PreconditionFailed',
};

/** S3's error code: the body's `Code`, or for a bodiless answer the name of its status. */
function s3ErrorCode(error: S3ServiceException): string {
  return error.name === 'Unknown' ? (BODILESS[error.$metadata.httpStatusCode ?? 0] ?? 'Unknown') : error.name;
}

/** How S3 refused a request about a caller's file, or undefined when the error is not the caller's. */
export function fileFault(error: unknown): FileRefusal | undefined {
  // A client fault only: S3's own failures (5xx) are outages whatever their code.
  if (!(error instanceof S3ServiceException) || error.$fault !== 'client') return undefined;
  const code = s3ErrorCode(error);
  const fault = FAULTS[code];
  return fault && { fault, code };
}

/** The 422 message for a field whose file S3 refused. */
export function fileFaultMessage(field: string, { fault, code }: FileRefusal): string {
  const the = `The ${field.replaceAll('_', ' ')} field`;
  switch (fault) {
    case 'missing':
      return `${the} must name a file in your file library.`;
    case 'refused':
      return `${the} names a file that cannot be stored or copied (S3: ${code}).`;
    case 'changed':
      return `${the} names a file that changed while it was being copied: send the request again.`;
  }
}

/**
 * Runs an S3 call about the file the caller named in `fields` (one path may fill several): when S3
 * refuses that key or object, the call fails with a 422 naming each field instead.
 */
export async function callerFileCall<T>(fields: readonly string[], call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const refusal = fileFault(error);
    if (!refusal) throw error;
    const errors: Record<string, string[]> = Object.create(null);
    for (const field of fields) errors[field] = [fileFaultMessage(field, refusal)];
    throw new ValidationError(errors);
  }
}
