import { describe, expect, it } from 'vitest';
import { createBrandSchema, updateBrandSchema } from '../../../shared/domain/brand-input.ts';
import { validate } from '../../../shared/domain/validation.ts';
import { refusal } from '../../support/validation.ts';

/**
 * The rules of the brand create and update bodies, checked on the schemas as the handlers apply them. The
 * HTTP tests (test/functions/brands/brands.services.test.ts) keep one case per class of rule, and the rules that need the database.
 */
const refuseCreate = (body: unknown) => refusal(() => validate(createBrandSchema, body));

describe('the brand create body', () => {
  it.each([
    ['a missing name', {}, 'name', 'The name field is required.'],
    ['a blank name', { name: '   ' }, 'name', 'The name field is required.'],
    ['a name that is not a string', { name: 5 }, 'name', 'The name field must be a string.'],
    [
      'a long name',
      { name: 'n'.repeat(256) },
      'name',
      'The name field must not be greater than 255 characters.',
    ],
    [
      'a long description',
      { name: 'A', short_description: 'd'.repeat(256) },
      'short_description',
      'The short description field must not be greater than 255 characters.',
    ],
    [
      'a website that is no URL',
      { name: 'A', website_url: 'acme' },
      'website_url',
      'The website url field must be a valid URL.',
    ],
    [
      'a website that is not http(s)',
      { name: 'A', website_url: 'ftp://acme.example' },
      'website_url',
      'The website url field must be a valid URL.',
    ],
    [
      'a long website',
      { name: 'A', website_url: `https://a.example/${'p'.repeat(240)}` },
      'website_url',
      'The website url field must not be greater than 255 characters.',
    ],
    [
      'an image that is no URL',
      { name: 'A', header_image: 'header.png' },
      'header_image',
      'The header image field must be a valid URL.',
    ],
    [
      'a color of 5 digits',
      { name: 'A', primary_color: '#12345' },
      'primary_color',
      'The primary color field format is invalid.',
    ],
    [
      'a color without #',
      { name: 'A', primary_color: '1234567' },
      'primary_color',
      'The primary color field format is invalid.',
    ],
    [
      'a named color',
      { name: 'A', secondary_color: 'red' },
      'secondary_color',
      'The secondary color field format is invalid.',
    ],
    [
      'a color longer than 7',
      { name: 'A', secondary_color: '#1234567' },
      'secondary_color',
      'The secondary color field must not be greater than 7 characters.',
    ],
    [
      'a long path',
      { name: 'A', logo_image_path: 'p'.repeat(1025) },
      'logo_image_path',
      'The logo image path must not be greater than 1002 bytes once UTF-8 encoded.',
    ],
    [
      'a long tag',
      { name: 'A', tags: ['t'.repeat(256)] },
      'tags.0',
      'The tags.0 field must not be greater than 255 characters.',
    ],
    ['tags that are no array', { name: 'A', tags: 'a,b' }, 'tags', 'The tags field must be an array.'],
    [
      'a tag that is no string',
      { name: 'A', tags: ['ok', 3] },
      'tags.1',
      'The tags.1 field must be a string.',
    ],
    [
      'a non-boolean default flag',
      { name: 'A', is_default: 'yes' },
      'is_default',
      'The is default field must be true or false.',
    ],
    [
      'a fractional identity id',
      { name: 'A', email_address_id: 1.5 },
      'email_address_id',
      'The email address id field must be an integer.',
    ],
    ['a zero identity id', { name: 'A', phone_id: 0 }, 'phone_id', 'The phone id field must be at least 1.'],
    [
      'a social link that is no URL',
      { name: 'A', social_links: ['https://x.com/a', 'nope'] },
      'social_links.1',
      'The social links.1 field must be a valid URL.',
    ],
    [
      'a social link map with a bad URL',
      { name: 'A', social_links: { x: 'nope' } },
      'social_links.x',
      'The social links.x field must be a valid URL.',
    ],
    [
      'two links of one network',
      { name: 'A', social_links: ['https://x.com/a', 'https://twitter.com/b'] },
      'social_links.1',
      'The social links field has more than one x link.',
    ],
    [
      'social links as a string',
      { name: 'A', social_links: 'https://x.com/a' },
      'social_links',
      'The social links field must be an array of URLs or an object of network names to URLs.',
    ],
    [
      'a bad network name',
      { name: 'A', social_links: { 'my site!': 'https://a.example' } },
      'social_links',
      'The social links field has an invalid network name: my site!.',
    ],
  ])('refuses %s, naming the field', (_case, body, field, message) => {
    const refused = refuseCreate(body);
    expect(refused.errors[field]).toContain(message);
    expect(refused.message).toContain(message);
  });

  it('reports every failed field at once', () => {
    const refused = refuseCreate({ primary_color: 'red', website_url: 'x' });
    expect(Object.keys(refused.errors).sort()).toEqual(['name', 'primary_color', 'website_url']);
  });

  it.each([
    ['an array', [{ name: 'A' }]],
    ['a string', 'Acme'],
    ['a number', 42],
  ])('refuses a body that is %s', (_case, body) => {
    expect(refuseCreate(body).message).toBe('The request body must be a JSON object.');
  });
});

describe('the brand update body', () => {
  it.each([null, '', '  '])('refuses the name %j: a brand keeps its name', (name) => {
    const refused = refusal(() => validate(updateBrandSchema, { name, short_description: 'x' }));
    expect(Object.keys(refused.errors)).toEqual(['name']);
  });
});
