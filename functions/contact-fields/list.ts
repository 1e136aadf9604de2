import { contactFieldListView, listContactFields } from '../../shared/data/contact-fields.ts';
import { contactFieldsQuery } from '../../shared/domain/requests.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { validate } from '../../shared/http/validation.ts';

export const handler = httpHandler(async (req) => {
  const { contact_type } = validate(contactFieldsQuery, req.query);
  const fields = await listContactFields(req.teamId, contact_type);
  return ok(fields.map(contactFieldListView));
});
