import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { dirname } from 'node:path';

/**
 * KMS's GenerateDataKey and Decrypt, locally: the functions' KMS client talks to it over HTTP (KMS_ENDPOINT)
 * in KMS's JSON protocol, as it talks to KMS in AWS, so the tests run the real sealing and opening of
 * webhook signing secrets. Its one key is 32 random bytes kept in the data directory (created once, mode
 * 0600): a data key it made opens under the same directory's key after a restart. A data key's blob is
 * the key AES-256-GCM-sealed under it, the encryption context bound as additional data, as KMS binds it.
 * `GET /calls` lists the calls made (operation and a hash of the data key blob; the newest 10,000), for the
 * tests and the bench, which count them.
 */
export const LOCAL_KMS_KEY_ARN = 'arn:aws:kms:us-east-1:000000000000:key/local-signing-secrets';

export interface KmsCall {
  operation: 'GenerateDataKey' | 'Decrypt';
  /** sha256 of the data key's blob, 16 hex digits (shared/data/secret-envelope.ts dataKeyName). */
  dataKey: string;
}

const BLOB_VERSION = 1;
const CALLS_KEPT = 10_000;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The key of `file`, made (32 random bytes, mode 0600) the first time. */
export async function localKmsKey(file: string): Promise<Buffer> {
  try {
    const key = await readFile(file);
    if (key.length === 32) return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(dirname(file), { recursive: true });
  const key = randomBytes(32);
  // `wx`: two starts at once keep one key (the loser reads the winner's).
  try {
    await writeFile(file, key, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFile(file);
    throw error;
  }
  await chmod(file, 0o600);
  return key;
}

const contextBytes = (context: Record<string, string> | undefined) =>
  Buffer.from(JSON.stringify(Object.entries(context ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));

const blobName = (blob: Buffer) => createHash('sha256').update(blob).digest('hex').slice(0, 16);

export function createKms(masterKey: Buffer): Server {
  const calls: KmsCall[] = [];
  // The newest CALLS_KEPT only: a long `npm start` does not grow without bound.
  const record = (call: KmsCall) => {
    calls.push(call);
    if (calls.length > CALLS_KEPT) calls.splice(0, calls.length - CALLS_KEPT);
  };
  return createServer((request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'Content-Type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(body));
    };
    const refuse = (type: string, message: string) => reply(400, { __type: type, message });
    if (request.method === 'GET' && request.url === '/calls') return reply(200, calls);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = request.headers['x-amz-target'];
      let input: {
        KeyId?: string;
        KeySpec?: string;
        CiphertextBlob?: string;
        EncryptionContext?: Record<string, string>;
      };
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return refuse('SerializationException', 'the body is not JSON');
      }
      if (target === 'TrentService.GenerateDataKey') {
        if (input.KeyId !== LOCAL_KMS_KEY_ARN) return refuse('NotFoundException', `no key ${input.KeyId}`);
        if (input.KeySpec !== 'AES_256')
          return refuse('ValidationException', 'only KeySpec AES_256 is served here');
        const plaintext = randomBytes(32);
        const nonce = randomBytes(NONCE_BYTES);
        const cipher = createCipheriv('aes-256-gcm', masterKey, nonce);
        cipher.setAAD(contextBytes(input.EncryptionContext));
        const sealed = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
        const blob = Buffer.concat([Buffer.from([BLOB_VERSION]), nonce, sealed]);
        record({ operation: 'GenerateDataKey', dataKey: blobName(blob) });
        return reply(200, {
          KeyId: LOCAL_KMS_KEY_ARN,
          Plaintext: plaintext.toString('base64'),
          CiphertextBlob: blob.toString('base64'),
        });
      }
      if (target === 'TrentService.Decrypt') {
        const blob = Buffer.from(input.CiphertextBlob ?? '', 'base64');
        record({ operation: 'Decrypt', dataKey: blobName(blob) });
        if (input.KeyId !== undefined && input.KeyId !== LOCAL_KMS_KEY_ARN) {
          return refuse('IncorrectKeyException', `the blob is not of key ${input.KeyId}`);
        }
        if (blob.length < 1 + NONCE_BYTES + TAG_BYTES || blob[0] !== BLOB_VERSION) {
          return refuse('InvalidCiphertextException', 'not a blob of this key');
        }
        try {
          const decipher = createDecipheriv('aes-256-gcm', masterKey, blob.subarray(1, 1 + NONCE_BYTES));
          decipher.setAAD(contextBytes(input.EncryptionContext));
          decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES));
          const plaintext = Buffer.concat([
            decipher.update(blob.subarray(1 + NONCE_BYTES, blob.length - TAG_BYTES)),
            decipher.final(),
          ]);
          return reply(200, { KeyId: LOCAL_KMS_KEY_ARN, Plaintext: plaintext.toString('base64') });
        } catch {
          return refuse('InvalidCiphertextException', 'the blob or its encryption context does not match');
        }
      }
      return refuse('UnknownOperationException', 'only GenerateDataKey and Decrypt are served here');
    });
  });
}
