import { CONTACT_FIELD_TYPES } from '../../shared/domain/contact-field-types.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';

export const handler = httpHandler(async () => ok(CONTACT_FIELD_TYPES));
