import { type HTMLElement, TextNode } from 'node-html-parser';
import { LIMITS } from '../limits.ts';

/**
 * Where auto-configure takes text from the page it reads: every attribute, an element's text and a JSON string pass
 * through `clipped` before anything works over the whole of them, so no collapse, trim, pattern, split, case fold or
 * URL parse runs over more than autoConfigureRawTextLength characters of someone else's text, however long it is.
 * The cut keeps every result of a real page: what is read of a text is at most autoConfigureTextLength characters
 * (a name at most 255), and the cut leaves 64 times that.
 */

/** The text cut to `length` characters (autoConfigureRawTextLength unless told), never inside a surrogate pair. */
export function clipped(text: string, length: number = LIMITS.autoConfigureRawTextLength): string {
  if (text.length <= length) return text;
  // A high surrogate last would be half a character.
  const end = isHighSurrogate(text.charCodeAt(length - 1)) ? length - 1 : length;
  return text.slice(0, end);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** An attribute's value (decoded by the parser, once per element), clipped; undefined when absent. */
export function attributeOf(element: HTMLElement, name: string): string | undefined {
  const value = element.getAttribute(name);
  return value === undefined ? undefined : clipped(value);
}

/** The element's `id`, clipped (empty when it has none). */
export function idOf(element: HTMLElement): string {
  return clipped(element.id);
}

/**
 * An element's text with its entities decoded, as `element.text` gives it, but cut before it is decoded: the raw
 * text is clipped, then decoded by the parser's own decoder (an entity cut at the end stays as written, past
 * anything a real page's text is read to).
 */
export function textOf(element: HTMLElement): string {
  return new TextNode(clipped(element.rawText)).text;
}
