import { contactFieldView, updateContactField } from '../../shared/data/contact-fields.ts';
import { reviseContactField } from '../../shared/domain/contact-field-input.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';

/** The body is checked against the stored field (after the ownership and integration checks). */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'ContactField');
  const field = await updateContactField(req.teamId, id, (current) => reviseContactField(current, req.body));
  return ok(contactFieldView(field));
});
