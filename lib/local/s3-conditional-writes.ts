/**
 * S3's conditional writes, which s3rver lacks: a PutObject (or a CompleteMultipartUpload) with
 * `If-None-Match: *` writes only when the key holds no object, else 412 PreconditionFailed with S3's XML
 * error, and of two such writes of one key at once the second is 409 ConditionalRequestConflict (S3's
 * answer to a concurrent conditional write). Upload URLs sign the header (shared/files/uploads.ts), so
 * locally too a second PUT on one URL is refused, as S3 refuses it. Other values of the header and other
 * requests go to s3rver as they are.
 */

/** The part of Koa's context this reads and writes (s3rver is a Koa application). */
export interface S3Context {
  req: import('node:http').IncomingMessage;
  method: string;
  path: string;
  query: Record<string, unknown>;
  get(header: string): string;
  status: number;
  type: string;
  body: unknown;
}

export type S3Middleware = (context: S3Context, next: () => Promise<unknown>) => Promise<unknown>;

/** The middleware, over a store that says whether a key holds an object (s3rver's file store). */
export function conditionalWrites(store: {
  existsObject(bucket: string, key: string): Promise<boolean>;
}): S3Middleware {
  const writing = new Set<string>();
  return async (context, next) => {
    const target = conditionalWrite(context);
    if (!target) return next();
    const name = `${target.bucket}/${target.key}`;
    if (writing.has(name)) {
      await drained(context.req);
      return refuse(context, 409, 'ConditionalRequestConflict', CONFLICT_MESSAGE);
    }
    writing.add(name);
    try {
      if (await store.existsObject(target.bucket, target.key)) {
        await drained(context.req);
        return refuse(context, 412, 'PreconditionFailed', PRECONDITION_MESSAGE, 'If-None-Match');
      }
      return await next();
    } finally {
      writing.delete(name);
    }
  };
}

const PRECONDITION_MESSAGE = 'At least one of the pre-conditions you specified did not hold';
const CONFLICT_MESSAGE =
  'A conflicting conditional operation is currently in progress against this resource. Please try again.';

/** The bucket and key of a write conditioned on the key holding nothing (path-style addressing). */
function conditionalWrite(context: S3Context): { bucket: string; key: string } | undefined {
  if (context.get('if-none-match').trim() !== '*') return undefined;
  const { query } = context;
  // A part of a multipart upload takes no condition; its completion (POST ?uploadId) does.
  const write =
    (context.method === 'PUT' && query.uploadId === undefined && query.partNumber === undefined) ||
    (context.method === 'POST' && query.uploadId !== undefined);
  if (!write) return undefined;
  const [, bucket, ...key] = context.path.split('/');
  if (!bucket || key.join('/') === '') return undefined;
  try {
    return { bucket: decodeURIComponent(bucket), key: decodeURIComponent(key.join('/')) };
  } catch {
    return undefined; // a malformed escape: s3rver answers it
  }
}

/**
 * The refused upload's body read and dropped: answered before it is read, the client would still be
 * sending it on a connection the server is done with.
 */
function drained(request: import('node:http').IncomingMessage): Promise<void> {
  if (request.readableEnded) return Promise.resolve();
  return new Promise((done) => {
    request
      .on('end', done)
      .on('error', () => done())
      .on('close', () => done());
    request.resume();
  });
}

function refuse(context: S3Context, status: number, code: string, message: string, condition?: string) {
  context.status = status;
  context.type = 'application/xml';
  context.body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>${code}</Code><Message>${message}</Message>` +
    `${condition ? `<Condition>${condition}</Condition>` : ''}</Error>`;
}
