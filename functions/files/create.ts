import { uploadRequest } from '../../shared/domain/requests.ts';
import { validate } from '../../shared/domain/validation.ts';
import { createUploadUrl } from '../../shared/files/uploads.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';

/**
 * A presigned PUT URL for one file of the caller's library, of the size declared, within the team's upload
 * quotas; nothing exists until the bytes are PUT.
 */
export const handler = httpHandler(async (req) => {
  const { path, content_type, size } = validate(uploadRequest, req.body);
  return ok(await createUploadUrl(req.teamId, path, content_type, size));
});
