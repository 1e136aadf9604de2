import { createContactField } from '../../shared/data/contact-fields.ts';
import { encodeCursor } from '../../shared/http/cursors.ts';
import {
  creates,
  newTeamId,
  noSuchId,
  once,
  onItem,
  onRoute,
  READS,
  type Scenario,
  type Shared,
  unique,
  WRITES,
} from './common.ts';

const fieldInput = (tag: string) => ({
  name: `Field ${tag}`,
  tag,
  type: 'text' as const,
  contact_type: 'person' as const,
});

const create = creates('POST /api/v1/contact-fields');

/** Before anything else reserves field ids: what the first create of a container pays. */
export function firstContactFieldCreate({ writerTeam }: Shared): Scenario {
  return onRoute(
    {
      name: 'contact fields create, first in this process (reserves an id block)',
      endpoint: 'POST /api/v1/contact-fields',
      expectedStatus: 201,
      warmup: 0,
      iterations: 0,
    },
    async () => ({ teamId: await writerTeam(), body: fieldInput(unique('first')) }),
  );
}

export function contactFieldScenarios({ writerTeam }: Shared): Scenario[] {
  // A team with ten fields (persons and organizations by turns); another team owns `otherFieldId`.
  const fieldsTeam = once(async () => {
    const teamId = await newTeamId('Bench fields');
    const ids = [];
    for (let i = 0; i < 10; i++) {
      const field = await createContactField(teamId, {
        ...fieldInput(`field_${i}`),
        contact_type: i % 2 ? 'organization' : 'person',
      });
      ids.push(field.id);
    }
    const otherTeam = await newTeamId('Bench other fields');
    const other = await createContactField(otherTeam, fieldInput('not_yours'));
    return { teamId, fieldId: ids[0] as number, otherFieldId: other.id };
  });
  const fieldsTeamId = async () => (await fieldsTeam()).teamId;
  const ownField = async () => {
    const { teamId, fieldId } = await fieldsTeam();
    return { teamId, id: fieldId };
  };

  return [
    onRoute(
      {
        name: 'contact fields list (10 fields)',
        endpoint: 'GET /api/v1/contact-fields',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      async () => ({ teamId: await fieldsTeamId() }),
    ),
    onRoute(
      {
        name: 'contact fields list, ?contact_type=person',
        endpoint: 'GET /api/v1/contact-fields',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      async () => ({ teamId: await fieldsTeamId(), query: { contact_type: ['person'] } }),
    ),
    onRoute(
      {
        name: 'contact fields list, second page of ?limit=3 (cursor)',
        endpoint: 'GET /api/v1/contact-fields',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      async () => {
        const { teamId, fieldId } = await fieldsTeam();
        // A page after a field's id, as a Link carries it: one Query from that key, whatever follows.
        const cursor = encodeCursor({ list: 'contact-fields', teamId, filters: {} }, fieldId + 2);
        return { teamId, query: { limit: ['3'], cursor: [cursor] } };
      },
    ),
    onItem(
      {
        name: 'contact fields get',
        endpoint: 'GET /api/v1/contact-fields/{id}',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      ownField,
    ),
    onItem(
      {
        name: "contact fields get, another team's (403)",
        endpoint: 'GET /api/v1/contact-fields/{id}',
        budget: 2,
        expectedStatus: 403,
        warmup: 10,
        iterations: READS,
      },
      async () => {
        const { teamId, otherFieldId } = await fieldsTeam();
        return { teamId, id: otherFieldId };
      },
    ),
    noSuchId(
      {
        name: 'contact fields get, no such field (404)',
        endpoint: 'GET /api/v1/contact-fields/{id}',
        budget: 2,
      },
      fieldsTeamId,
    ),
    create({ name: 'contact fields create', budget: 1 }, async () => ({
      teamId: await writerTeam(),
      body: fieldInput(unique('f')),
    })),
    create({ name: 'contact fields create, Idempotency-Key', budget: 1 }, async () => ({
      teamId: await writerTeam(),
      body: fieldInput(unique('k')),
      headers: { 'Idempotency-Key': unique('key') },
    })),
    onItem(
      {
        name: 'contact fields update, same tag',
        endpoint: 'PUT /api/v1/contact-fields/{id}',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: WRITES,
      },
      async () => ({ ...(await ownField()), body: { name: unique('Renamed') } }),
    ),
    onItem(
      {
        name: 'contact fields update, tag change',
        endpoint: 'PUT /api/v1/contact-fields/{id}',
        budget: 2,
        expectedStatus: 200,
        warmup: 10,
        iterations: WRITES,
      },
      async () => ({ ...(await ownField()), body: { tag: unique('retagged') } }),
    ),
    noSuchId(
      {
        name: 'contact fields update, no such field (404)',
        endpoint: 'PUT /api/v1/contact-fields/{id}',
        budget: 3,
        body: { name: 'Nobody' },
      },
      fieldsTeamId,
    ),
    onItem(
      {
        name: 'contact fields delete',
        endpoint: 'DELETE /api/v1/contact-fields/{id}',
        budget: 2,
        expectedStatus: 200,
        warmup: 10,
        iterations: WRITES,
      },
      async () => {
        const teamId = await writerTeam();
        const field = await createContactField(teamId, fieldInput(unique('doomed')));
        return { teamId, id: field.id };
      },
    ),
    noSuchId(
      {
        name: 'contact fields delete, no such field (404)',
        endpoint: 'DELETE /api/v1/contact-fields/{id}',
        budget: 3,
      },
      fieldsTeamId,
    ),
    onRoute(
      {
        name: 'contact fields types',
        endpoint: 'GET /api/v1/contact-fields/types',
        budget: 0,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      async () => ({ teamId: await writerTeam() }),
    ),
  ];
}
