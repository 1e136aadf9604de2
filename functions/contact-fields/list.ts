import { contactFieldListView, listContactFields } from '../../shared/data/contact-fields.ts';
import { isIdPosition } from '../../shared/domain/ordering.ts';
import { contactFieldsQuery } from '../../shared/domain/requests.ts';
import { validate } from '../../shared/domain/validation.ts';
import { httpHandler } from '../../shared/http/handler.ts';
import { pageResponse, requestedPage } from '../../shared/http/pagination.ts';

export const handler = httpHandler(async (req) => {
  const { contact_type } = validate(contactFieldsQuery, req.query);
  const filters = { contact_type: contact_type && [contact_type] };
  const paging = requestedPage(req, 'contact-fields', filters, isIdPosition);
  const page = await listContactFields(req.teamId, contact_type, paging.options);
  return pageResponse(req, paging, page, contactFieldListView);
});
