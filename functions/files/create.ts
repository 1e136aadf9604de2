import * as z from 'zod';
import { libraryPath } from '../../shared/files/library-path-schema.ts';
import { createUploadUrl } from '../../shared/files/uploads.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { validate } from '../../shared/http/validation.ts';

// type/subtype with optional parameters (RFC 6838 names), e.g. `image/png` or `text/plain; charset=utf-8`.
const TOKEN = '[A-Za-z0-9!#$&^_.+-]+';
const MIME_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(\\s*;\\s*${TOKEN}=(${TOKEN}|"[^"]*"))*$`);

const uploadRequest = z.object({
  path: libraryPath('path'),
  content_type: z.string().max(255).regex(MIME_TYPE),
});

/** A presigned PUT URL for one file of the caller's library; nothing exists until the bytes are PUT. */
export const handler = httpHandler(async (req) => {
  const { path, content_type } = validate(uploadRequest, req.body);
  return ok(await createUploadUrl(req.teamId, path, content_type));
});
