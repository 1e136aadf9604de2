import { createBrand } from '../../shared/data/brand-writes.ts';
import { createList } from '../../shared/data/lists.ts';
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

const brandBody = (name: string) => ({
  name,
  short_description: 'Benchmark brand',
  website_url: 'https://example.com',
  primary_color: '#112233',
  secondary_color: '#445566',
  social_links: ['https://twitter.com/example'],
  tags: ['bench', 'newsletter'],
});

/** The same brand as the data module takes it (social links as the stored map). */
const storedBrand = (name: string) => ({
  ...brandBody(name),
  social_links: { twitter: 'https://twitter.com/example' },
});

const create = creates('POST /api/v1/brands');

/** A `DELETE` of a brand made for each invocation with `brand()`, in the team `teamId()` gives. */
const deleteMade = (
  { name, budget }: { name: string; budget: number },
  teamId: () => Promise<number>,
  brand: () => Parameters<typeof createBrand>[1],
) =>
  onItem(
    {
      name,
      endpoint: 'DELETE /api/v1/brands/{id}',
      budget,
      expectedStatus: 200,
      warmup: 10,
      iterations: WRITES,
    },
    async () => {
      const team = await teamId();
      return { teamId: team, id: (await createBrand(team, brand())).id };
    },
  );

/** A default brand with `count` lists linked to it, in `teamId`. */
const brandWithLists = async (teamId: number, count: number) => {
  const brand = await createBrand(teamId, { name: unique('Linked'), is_default: true });
  for (let i = 0; i < count; i++) await createList(teamId, 'email', `List ${i}`);
  return brand.id;
};

/** Before anything else reserves brand ids: what the first create of a container pays. */
export function firstBrandCreate({ writerTeam }: Shared): Scenario {
  return onRoute(
    {
      name: 'brands create, first in this process (reserves an id block)',
      endpoint: 'POST /api/v1/brands',
      expectedStatus: 201,
      warmup: 0,
      iterations: 0,
    },
    async () => ({ teamId: await writerTeam(), body: brandBody('First') }),
  );
}

export function brandScenarios({ writerTeam }: Shared): Scenario[] {
  // A team with five brands (the first the default); another team owns `otherBrandId`.
  const brandsTeam = once(async () => {
    const teamId = await newTeamId('Bench brands');
    const ids: number[] = [];
    for (const [i, name] of ['Acme', 'Beta', 'Gamma', 'Delta', 'Epsilon'].entries()) {
      ids.push((await createBrand(teamId, { ...storedBrand(name), is_default: i === 0 })).id);
    }
    const otherTeam = await newTeamId('Bench other brands');
    const otherBrand = await createBrand(otherTeam, { name: 'Not yours' });
    // Beta: never the default, so updating it is the plain one-call path; Acme is the default.
    return { teamId, brandId: ids[1] as number, defaultId: ids[0] as number, otherBrandId: otherBrand.id };
  });
  const brandsTeamId = async () => (await brandsTeam()).teamId;
  const ownBrand = async () => {
    const { teamId, brandId } = await brandsTeam();
    return { teamId, id: brandId };
  };

  // Alternates the default between two brands of one team, so every update moves it.
  const defaultSwitch = once(async () => {
    const teamId = await newTeamId('Bench default switch');
    const first = await createBrand(teamId, { name: 'First', is_default: true });
    const second = await createBrand(teamId, { name: 'Second' });
    return { teamId, ids: [second.id, first.id], turn: 0 };
  });
  const defaultsTeam = once(() => newTeamId('Bench defaults'));

  return [
    onRoute(
      {
        name: 'brands list (5 brands)',
        endpoint: 'GET /api/v1/brands',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      async () => ({ teamId: await brandsTeamId() }),
    ),
    onRoute(
      {
        name: 'brands list, second page of ?limit=2 (cursor)',
        endpoint: 'GET /api/v1/brands',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      async () => {
        const teamId = await brandsTeamId();
        // The cursor the first page's Link carries: after the second brand by name (Acme, Beta).
        const cursor = encodeCursor({ list: 'brands', teamId, filters: {} }, [
          'Beta',
          (await brandsTeam()).brandId,
        ]);
        return { teamId, query: { limit: ['2'], cursor: [cursor] } };
      },
    ),
    onItem(
      {
        name: 'brands get',
        endpoint: 'GET /api/v1/brands/{id}',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: READS,
      },
      ownBrand,
    ),
    onItem(
      {
        name: "brands get, another team's (403)",
        endpoint: 'GET /api/v1/brands/{id}',
        budget: 2,
        expectedStatus: 403,
        warmup: 10,
        iterations: READS,
      },
      async () => {
        const { teamId, otherBrandId } = await brandsTeam();
        return { teamId, id: otherBrandId };
      },
    ),
    noSuchId(
      { name: 'brands get, no such brand (404)', endpoint: 'GET /api/v1/brands/{id}', budget: 2 },
      brandsTeamId,
    ),
    create({ name: 'brands create', budget: 1 }, async () => ({
      teamId: await writerTeam(),
      body: brandBody(unique('Brand')),
    })),
    create({ name: 'brands create, Idempotency-Key', budget: 1 }, async () => ({
      teamId: await writerTeam(),
      body: brandBody(unique('Keyed')),
      headers: { 'Idempotency-Key': unique('key') },
    })),
    create({ name: 'brands create, is_default (team has no default)', budget: 1 }, async () => ({
      teamId: await newTeamId('Bench first default'),
      body: { ...brandBody('Default'), is_default: true },
    })),
    // The brand that loses the default is written too (its own stream record makes its event):
    // a first try assuming no default fails on the pointer's condition, which names the loser. No read.
    create({ name: 'brands create, is_default (replaces the default)', budget: 2 }, async () => ({
      teamId: await defaultsTeam(),
      body: { ...brandBody(unique('Default')), is_default: true },
    })),
    onItem(
      {
        name: 'brands update',
        endpoint: 'PUT /api/v1/brands/{id}',
        budget: 1,
        expectedStatus: 200,
        warmup: 10,
        iterations: WRITES,
      },
      async () => ({
        ...(await ownBrand()),
        body: { short_description: unique('Updated'), tags: ['bench', unique('tag')] },
      }),
    ),
    onItem(
      {
        // The update returns the brand, and a brand the pointer ever named needs the pointer's answer.
        name: 'brands update, the default brand',
        endpoint: 'PUT /api/v1/brands/{id}',
        budget: 2,
        expectedStatus: 200,
        warmup: 10,
        iterations: WRITES,
      },
      async () => {
        const { teamId, defaultId } = await brandsTeam();
        return { teamId, id: defaultId, body: { short_description: unique('Updated') } };
      },
    ),
    onItem(
      {
        // A transaction returns no item: the brand is read (with the pointer) for the response.
        name: 'brands update, makes it the default',
        endpoint: 'PUT /api/v1/brands/{id}',
        budget: 2,
        expectedStatus: 200,
        warmup: 10,
        iterations: WRITES,
      },
      async () => {
        const state = await defaultSwitch();
        const id = state.ids[state.turn++ % 2] as number;
        return { teamId: state.teamId, id, body: { is_default: true } };
      },
    ),
    noSuchId(
      {
        name: 'brands update, no such brand (404)',
        endpoint: 'PUT /api/v1/brands/{id}',
        budget: 2,
        body: { name: 'Nobody' },
      },
      brandsTeamId,
    ),
    deleteMade({ name: 'brands delete (no lists)', budget: 2 }, writerTeam, () => ({
      name: unique('Doomed'),
    })),
    deleteMade(
      { name: 'brands delete, the default (no lists)', budget: 2 },
      () => newTeamId('Bench default delete'),
      () => ({ name: 'Only', is_default: true }),
    ),
    onItem(
      {
        name: 'brands delete, the default with 150 lists',
        endpoint: 'DELETE /api/v1/brands/{id}',
        budget: 2 + Math.floor(150 / 100),
        expectedStatus: 200,
        warmup: 1,
        iterations: 10,
      },
      async () => {
        const teamId = await newTeamId('Bench lists');
        return { teamId, id: await brandWithLists(teamId, 150) };
      },
    ),
    onItem(
      {
        // Lists link only the default brand; a brand keeps its lists when the default moves on.
        name: 'brands delete, a former default with 10 lists',
        endpoint: 'DELETE /api/v1/brands/{id}',
        budget: 2,
        expectedStatus: 200,
        warmup: 2,
        iterations: 30,
      },
      async () => {
        const teamId = await newTeamId('Bench lists');
        const id = await brandWithLists(teamId, 10);
        await createBrand(teamId, { name: unique('Successor'), is_default: true });
        return { teamId, id };
      },
    ),
    noSuchId(
      { name: 'brands delete, no such brand (404)', endpoint: 'DELETE /api/v1/brands/{id}', budget: 3 },
      brandsTeamId,
    ),
  ];
}
