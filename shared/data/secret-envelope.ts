import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { sdkClientOptions } from '../aws.ts';
import { config } from '../config.ts';
import { SIGNING_SECRET_KEYS } from '../limits.ts';

/**
 * Envelope encryption of webhook signing secrets (docs/webhooks.md, "Signing secrets at rest"). A secret
 * is sealed with AES-256-GCM under a data key from KMS GenerateDataKey; the data key is kept beside it as
 * KMS encrypted it, so only a function granted kms:Decrypt on the stack's key can open it. The GCM
 * additional data names the team, the endpoint and the secret's id: a sealed secret copied onto another
 * endpoint's item does not open. The KMS encryption context is one fixed purpose, so data keys can be
 * shared and cached: a creating function seals with one data key for a bounded time and count, and a
 * deliverer keeps the data keys it opened (bounded LRU, bounded age), so a warm deliverer makes no KMS
 * call per delivery. Locally the same calls go to the KMS stand-in (lib/local/kms.ts).
 */
export const SIGNING_SECRET_PURPOSE = 'webhook-signing-secret';
const ENCRYPTION_CONTEXT = { purpose: SIGNING_SECRET_PURPOSE };

/** A secret as the endpoint's item keeps it: sealed, never in clear. */
export interface SealedSecret {
  /** Names the secret (an Idempotency-Key replay compares it, never the secret). */
  id: string;
  /** The data key, as KMS encrypted it (base64 CiphertextBlob). */
  data_key: string;
  /** base64 of the GCM nonce (12 bytes), the ciphertext and the tag (16 bytes). */
  sealed: string;
}

/** Whose secret it is: bound into the seal as additional data. */
export interface SecretOwner {
  teamId: number;
  endpointId: number;
}

/** A sealed secret that does not open: tampered with, copied from another item, or under a foreign key. */
export class SecretRefused extends Error {
  constructor(reason: string) {
    super(`webhook signing secret refused: ${reason}`);
    this.name = 'SecretRefused';
  }
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

let client: KMSClient | undefined;
const kms = () => (client ??= new KMSClient(sdkClientOptions(config.kmsEndpoint(), 'local')));

const additionalData = (owner: SecretOwner, id: string) =>
  Buffer.from(`${SIGNING_SECRET_PURPOSE}\0team ${owner.teamId}\0endpoint ${owner.endpointId}\0secret ${id}`);

/** A new id for a secret: random, so it says nothing of the secret. */
export const newSecretId = (): string => randomBytes(9).toString('base64url');

/** Seals `secret` for its endpoint: one GenerateDataKey per SIGNING_SECRET_KEYS.sealWithOneKey* at most. */
export async function sealSecret(
  secret: string,
  owner: SecretOwner,
  id = newSecretId(),
): Promise<SealedSecret> {
  const dataKey = await sealingKey();
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, nonce);
  cipher.setAAD(additionalData(owner, id));
  const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { id, data_key: dataKey.encrypted, sealed: Buffer.concat([nonce, ciphertext]).toString('base64') };
}

/** The secret in clear; SecretRefused when it does not open for this owner. */
export async function openSecret(stored: SealedSecret, owner: SecretOwner): Promise<string> {
  const key = await openedKey(stored.data_key);
  const sealed = Buffer.from(stored.sealed, 'base64');
  if (sealed.length < NONCE_BYTES + TAG_BYTES) throw new SecretRefused('too short');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES));
  decipher.setAAD(additionalData(owner, stored.id));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([
      decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    throw new SecretRefused('its seal does not match its endpoint');
  }
}

interface SealingKey {
  plaintext: Buffer;
  encrypted: string;
  since: number;
  uses: number;
}

let sealing: Promise<SealingKey> | undefined;

/** The data key this process seals with, a new one when the current has been used long or often enough. */
async function sealingKey(): Promise<SealingKey> {
  const pending = (sealing ??= newDataKey());
  let key: SealingKey;
  try {
    key = await pending;
  } catch (error) {
    if (sealing === pending) sealing = undefined;
    throw error;
  }
  if (
    Date.now() - key.since >= SIGNING_SECRET_KEYS.sealWithOneKeyMs ||
    key.uses >= SIGNING_SECRET_KEYS.sealWithOneKeyCount
  ) {
    if (sealing === pending) sealing = undefined;
    return sealingKey();
  }
  key.uses++;
  return key;
}

async function newDataKey(): Promise<SealingKey> {
  const made = await kms().send(
    new GenerateDataKeyCommand({
      KeyId: config.signingSecretsKey(),
      KeySpec: 'AES_256',
      EncryptionContext: ENCRYPTION_CONTEXT,
    }),
  );
  if (!made.Plaintext || !made.CiphertextBlob) throw new Error('KMS GenerateDataKey answered no key');
  const key = {
    plaintext: Buffer.from(made.Plaintext),
    encrypted: Buffer.from(made.CiphertextBlob).toString('base64'),
    since: Date.now(),
    uses: 0,
  };
  // What this process sealed it also opens (a create's replay) without asking KMS.
  remember(key.encrypted, Promise.resolve(key.plaintext));
  return key;
}

/** Data keys opened, least recently used first (a Map keeps insertion order). */
const opened = new Map<string, { key: Promise<Buffer>; since: number }>();

function remember(encrypted: string, key: Promise<Buffer>): void {
  opened.delete(encrypted);
  opened.set(encrypted, { key, since: Date.now() });
  while (opened.size > SIGNING_SECRET_KEYS.openKeysKept) {
    const oldest = opened.keys().next().value as string;
    opened.delete(oldest);
  }
}

/** A data key in clear: from memory while young enough, else one KMS Decrypt (shared by concurrent callers). */
function openedKey(encrypted: string): Promise<Buffer> {
  const known = opened.get(encrypted);
  if (known && Date.now() - known.since < SIGNING_SECRET_KEYS.openKeyAgeMs) {
    opened.delete(encrypted);
    opened.set(encrypted, known);
    return known.key;
  }
  const key = decryptDataKey(encrypted);
  remember(encrypted, key);
  key.catch(() => opened.get(encrypted)?.key === key && opened.delete(encrypted));
  return key;
}

async function decryptDataKey(encrypted: string): Promise<Buffer> {
  try {
    const { Plaintext } = await kms().send(
      new DecryptCommand({
        CiphertextBlob: Buffer.from(encrypted, 'base64'),
        EncryptionContext: ENCRYPTION_CONTEXT,
        KeyId: config.signingSecretsKey(),
      }),
    );
    if (!Plaintext) throw new Error('KMS Decrypt answered no key');
    return Buffer.from(Plaintext);
  } catch (error) {
    // Not a key of ours, or not for this purpose: the secret is refused, not retried.
    const name = (error as { name?: string }).name;
    if (name === 'InvalidCiphertextException' || name === 'IncorrectKeyException') {
      throw new SecretRefused('its data key does not decrypt under the stack key');
    }
    throw error;
  }
}

/** A short name for a data key in logs and the stand-in's counts: never the key. */
export const dataKeyName = (encrypted: string) =>
  createHash('sha256').update(Buffer.from(encrypted, 'base64')).digest('hex').slice(0, 16);

/** Forgets every cached data key (tests: a cold function). */
export function forgetDataKeys(): void {
  sealing = undefined;
  opened.clear();
}
