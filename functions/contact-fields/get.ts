import { contactFieldView, getContactField } from '../../shared/data/contact-fields.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';

export const handler = httpHandler(async (req) => {
  const field = await getContactField(req.teamId, pathId(req, 'ContactField'));
  return ok(contactFieldView(field));
});
