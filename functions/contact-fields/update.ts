import { contactFieldView, updateContactField } from '../../shared/data/contact-fields.ts';
import type { ContactFieldDefinition } from '../../shared/domain/contact-field.ts';
import { blindRevision, reviseContactField } from '../../shared/domain/contact-field-input.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';
import { ifMatchOf, tagged } from '../../shared/http/preconditions.ts';

/** The body is checked against the stored field (after the ownership and integration checks). */
export const handler = httpHandler(async (req) => {
  const id = pathId(req, 'ContactField');
  const revise = (current: ContactFieldDefinition) => reviseContactField(current, req.body);
  const expected = ifMatchOf(req.headers, 'field')?.version;
  const { field, version } = await updateContactField(
    req.teamId,
    id,
    revise,
    blindRevision(req.body),
    expected,
  );
  return tagged(ok(contactFieldView(field)), 'field', { version });
});
