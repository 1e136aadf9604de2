import * as z from 'zod';
import { contactFieldListView, listContactFields } from '../../shared/data/contact-fields.ts';
import { CONTACT_TYPES, type ContactType } from '../../shared/domain/contact-field-types.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';
import { validate } from '../../shared/http/validation.ts';

/** `?contact_type=person|organization`, given at most once. */
const listQuery = z.object({
  contact_type: z
    .array(z.string())
    .refine((values) => values.length === 1 && CONTACT_TYPES.includes(values[0] as ContactType), {
      message: 'The selected contact type is invalid.',
    })
    .transform((values) => values[0] as ContactType)
    .optional(),
});

export const handler = httpHandler(async (req) => {
  const { contact_type } = validate(listQuery, req.query);
  const fields = await listContactFields(req.teamId, contact_type);
  return ok(fields.map(contactFieldListView));
});
