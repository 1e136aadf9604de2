import { describe, expect, it } from 'vitest';
import { createBrandSchema, updateBrandSchema } from '../../shared/domain/brand-input.ts';
import { checkLibraryPath } from '../../shared/files/library.ts';
import { validate } from '../../shared/http/validation.ts';
import { refusal } from '../support/validation.ts';

/**
 * The rules of a path in a team's file library, for the files endpoint (`path`) and the brand image
 * slots (`*_image_path`). The HTTP tests (brand-images.test.ts) keep one escape per endpoint.
 */
const ESCAPES = [
  '../secret.png',
  'a/../../b.png',
  '/abs.png',
  'teams/1/x.png',
  'a\\b.png',
  'a//b.png',
  './a.png',
  'dir/',
];

describe('a library path', () => {
  it.each(ESCAPES)('refuses %s, which could leave the library', (path) => {
    expect(Object.keys(refusal(() => checkLibraryPath(path)).errors)).toEqual(['path']);
  });

  it('refuses a path longer than 1024 characters', () => {
    expect(refusal(() => checkLibraryPath('p'.repeat(1025))).errors).toEqual({
      path: ['The path must not be greater than 1024 characters.'],
    });
  });
});

describe('a brand image path', () => {
  it.each(ESCAPES)('refuses %s, which could leave the library, on create and update', (path) => {
    const created = refusal(() =>
      validate(createBrandSchema, { name: 'Escape', social_share_image_path: path }),
    );
    expect(Object.keys(created.errors)).toEqual(['social_share_image_path']);
    expect(created.errors.social_share_image_path?.[0]).toMatch(/^The social share image path /);
    const updated = refusal(() => validate(updateBrandSchema, { logo_square_image_path: path }));
    expect(Object.keys(updated.errors)).toEqual(['logo_square_image_path']);
  });
});
