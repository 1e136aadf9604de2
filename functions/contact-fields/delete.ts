import { deleteContactField } from '../../shared/data/contact-fields.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';

export const handler = httpHandler(async (req) => {
  await deleteContactField(req.teamId, pathId(req, 'ContactField'));
  return ok({ message: 'Contact field deleted.' });
});
