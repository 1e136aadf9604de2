import { deleteContactField } from '../../shared/data/contact-fields.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { ifMatchOf } from '../../shared/http/preconditions.ts';

export const handler = httpHandler(async (req) => {
  const expected = ifMatchOf(req.headers, 'field')?.version;
  await deleteContactField(req.teamId, pathId(req, 'ContactField'), expected);
  return ok({ message: 'Contact field deleted.' });
});
