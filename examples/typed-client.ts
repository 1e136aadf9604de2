import { readFileSync } from 'node:fs';
import { createApiClient } from '../client/index.ts';

// The API's address and the demo team's token, read from local.json as the shell examples read them.
const local = JSON.parse(readFileSync(`${process.env.DATA_DIR ?? '.data'}/local.json`, 'utf8'));
const api = createApiClient({ baseUrl: local.api_url, token: local.demo_token });

// A create with an Idempotency-Key is safe to retry: the retry answers the first response again.
const key = crypto.randomUUID();
const brand = { name: 'Typed Acme', primary_color: '#1a2b3c', tags: ['typed'] };
const first = await api.POST('/api/v1/brands', {
  params: { header: { 'Idempotency-Key': key } },
  body: brand,
});
const retry = await api.POST('/api/v1/brands', {
  params: { header: { 'Idempotency-Key': key } },
  body: brand,
});
if (!first.data || !retry.data) throw new Error(first.error?.message ?? retry.error?.message);
console.log(
  `brand ${first.data.id}: ${first.response.status} ${first.data.name} ${first.data.primary_color}`,
);
console.log(
  `retry: Idempotent-Replay ${retry.response.headers.get('Idempotent-Replay')}, id ${retry.data.id}`,
);

const fields = await api.GET('/api/v1/contact-fields', { params: { query: { contact_type: 'person' } } });
if (!fields.data) throw new Error(fields.error.message);
console.log(
  `person fields: ${fields.data.length}`,
  fields.data.map((field) => `${field.tag} (${field.type})`),
);

// A 422 names each invalid field in `errors`.
const invalid = await api.POST('/api/v1/contact-fields', {
  body: { name: 'Favourite colour', tag: 'Favourite colour', type: 'pick_list', contact_type: 'person' },
});
if (invalid.error && 'errors' in invalid.error) {
  for (const [field, messages] of Object.entries(invalid.error.errors)) {
    console.log(`${invalid.response.status} ${field}: ${messages.join(' ')}`);
  }
}
