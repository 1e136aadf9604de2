import { contactFieldView, getContactField } from '../../shared/data/contact-fields.ts';
import { unlessNotModified } from '../../shared/http/conditional.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { tagged } from '../../shared/http/preconditions.ts';

/** With its ETag; If-None-Match naming it answers 304. */
export const handler = httpHandler(async (req) => {
  const { field, version } = await getContactField(req.teamId, pathId(req, 'ContactField'));
  return unlessNotModified(req, tagged(ok(contactFieldView(field)), 'field', { version }));
});
