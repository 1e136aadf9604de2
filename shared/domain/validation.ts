import type * as z from 'zod/mini';
import { ValidationError } from './errors.ts';
import { bodyKeysOf, misspelledKeyMessage, misspelledKeys } from './misspelled-keys.ts';
import { HAS_SPACE, schemeHint, URL_SPACES, urlSpacesMessage } from './url-hints.ts';

/**
 * Parses input with a zod schema at the edge of a handler. Failures become a Laravel-style 422:
 * `{message, errors: {field: [messages]}}`. Refinements (`code: 'custom'`) carry their own message; the
 * common codes get the standard sentences here, so schemas stay free of message boilerplate. A request
 * body schema (registered with `requestBody`) also refuses its probable misspellings of a field, first,
 * as they often explain the other errors (`Name` for `name`: the name is missing).
 */
export function validate<S extends z.ZodMiniType>(schema: S, input: unknown): z.output<S> {
  // No body at all reads as an empty object, so each required field is named.
  const result = schema.safeParse(input ?? {}, { reportInput: true });
  const keys = bodyKeysOf(schema);
  const misspelled = keys ? misspelledKeys(input, keys) : [];
  if (result.success && misspelled.length === 0) return result.data;
  // The keys are the caller's: none may reach the prototype.
  const errors: Record<string, string[]> = Object.create(null);
  for (const { key, field } of misspelled) errors[key] = [misspelledKeyMessage(key, field)];
  for (const issue of result.success ? [] : result.error.issues) {
    const field = issue.path.map(String).join('.') || 'body';
    const message = describe(issue, field);
    if (!errors[field]?.includes(message)) (errors[field] ??= []).push(message);
  }
  throw new ValidationError(errors);
}

type Issue = z.core.$ZodIssue;

function describe(issue: Issue, field: string): string {
  const the = `The ${field.replaceAll('_', ' ')} field`;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return `${the} is required.`;
      if (issue.expected === 'object' && field === 'body') return 'The request body must be a JSON object.';
      return `${the} must be ${article(issue.expected)}.`;
    case 'too_big':
      return issue.origin === 'string'
        ? `${the} must not be greater than ${issue.maximum} characters.`
        : issue.origin === 'array'
          ? `${the} must not have more than ${issue.maximum} items.`
          : `${the} must not be greater than ${issue.maximum}.`;
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return `${the} is required.`;
      return issue.origin === 'string'
        ? `${the} must be at least ${issue.minimum} characters.`
        : issue.origin === 'array'
          ? `${the} must have at least ${issue.minimum} items.`
          : `${the} must be at least ${issue.minimum}.`;
    case 'invalid_format':
      if (issue.format === 'datetime') {
        return `${the} must be an ISO 8601 date and time with a time zone, e.g. 2026-11-25T09:46:31Z or 2026-11-25T10:46:31+01:00.`;
      }
      if (issue.format !== 'url') return `${the} format is invalid.`;
      if (typeof issue.input === 'string' && HAS_SPACE.test(issue.input.trim())) return urlSpacesMessage(the);
      return `${the} must be a valid URL.${schemeHint(issue.input)}`;
    case 'invalid_value':
      if (issue.input === undefined) return `${the} is required.`;
      return selectedInvalid(field, issue.values.map(String));
    case 'custom':
      return issue.params?.rule === URL_SPACES ? urlSpacesMessage(the) : issue.message;
    default:
      return `${the} is invalid.`;
  }
}

/**
 * A value outside an enum, saying which are valid (as the list filters say theirs): `The selected type is
 * invalid: the types are text, email, ….`
 */
export function selectedInvalid(field: string, values: readonly string[]): string {
  const name = field.replaceAll('_', ' ');
  const plural = /(s|x|ch|sh)$/.test(name) ? `${name}es` : `${name}s`;
  return `The selected ${name} is invalid: the ${plural} are ${values.join(', ')}.`;
}

function article(expected: string): string {
  const names: Record<string, string> = {
    int: 'an integer',
    number: 'a number',
    string: 'a string',
    boolean: 'true or false',
    array: 'an array',
    object: 'an object',
  };
  return names[expected] ?? `a valid ${expected}`;
}
