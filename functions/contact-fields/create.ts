import { contactFieldView, createContactField } from '../../shared/data/contact-fields.ts';
import type { ContactField } from '../../shared/domain/contact-field.ts';
import { newContactFieldSchema } from '../../shared/domain/contact-field-input.ts';
import { validate } from '../../shared/domain/validation.ts';
import { created } from '../../shared/http/handler.ts';
import { idempotentHandler } from '../../shared/http/idempotency.ts';
import { tagged } from '../../shared/http/preconditions.ts';

/** A new field is at version 1. */
const respond = (field: ContactField) => tagged(created(contactFieldView(field)), 'field', { version: 1 });

export const handler = idempotentHandler(async (req, idempotency) => {
  const input = validate(newContactFieldSchema, req.body);
  return respond(await createContactField(req.teamId, input, idempotency.commitsWith(respond)));
});
