// The few parts of s3rver 3.7 that the local stack uses (the package ships no types).
declare module 's3rver' {
  export interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
  }
  /** Where the file store keeps each resource of a key (the object, its metadata…): every access goes here. */
  interface FilesystemStore {
    getResourcePath(bucket: string, key?: string, resource?: string): string;
    existsObject(bucket: string, key: string): Promise<boolean>;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    store: FilesystemStore;
    /** Koa's middleware, in order: s3rver's routes are the last. */
    middleware: Array<import('./s3-conditional-writes.ts').S3Middleware>;
    run(): Promise<{ address: string; port: number }>;
    /** The request handler (s3rver is a Koa application): what run() serves. */
    callback(): (
      request: import('node:http').IncomingMessage,
      response: import('node:http').ServerResponse,
    ) => void;
    close(): Promise<void>;
  }
}
