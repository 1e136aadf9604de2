import { contactFieldView, updateContactField } from '../../shared/data/contact-fields.ts';
import { blindRevision, reviseContactField } from '../../shared/domain/contact-field-input.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';

/** The body is checked against the stored field (after the ownership and integration checks). */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'ContactField');
  const revise = (current: Parameters<typeof reviseContactField>[0]) => reviseContactField(current, req.body);
  const field = await updateContactField(req.teamId, id, revise, blindRevision(req.body));
  return ok(contactFieldView(field));
});
