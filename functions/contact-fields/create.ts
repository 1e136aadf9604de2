import { type ContactField, contactFieldView, createContactField } from '../../shared/data/contact-fields.ts';
import { newContactFieldSchema } from '../../shared/domain/contact-field-input.ts';
import { created, httpHandler } from '../../shared/http/handler.ts';
import { commitsWith } from '../../shared/http/idempotency.ts';
import { validate } from '../../shared/http/validation.ts';

const respond = (field: ContactField) => created(contactFieldView(field));

export const handler = httpHandler(async (req) => {
  const input = validate(newContactFieldSchema, req.body);
  return respond(await createContactField(req.teamId, input, commitsWith(req, respond)));
});
