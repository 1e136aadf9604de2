import { LIMITS } from '../limits.ts';
import { FetchRefusal } from '../outbound/refusal.ts';

/**
 * What parsing a page will cost, known before it is parsed: node-html-parser is linear in a page's size except in
 * three places, and a hostile page can make each of them quadratic. Elements left open at the end are closed by
 * moving their children up one level at a time (40,000 unclosed `<div>` took 11.8 s); an unterminated `<!--` or
 * `<![CDATA[` makes its tokenizer scan to the end of the page from each one; and every element costs a few µs
 * (a 5 MiB page of empty elements, 6.5 s). This replays the parser's own tokenizer and stack rules (those of
 * node-html-parser 9.0.7; test/shared/autoconfigure/page-complexity.test.ts checks that they still are its) without building
 * anything, in time linear in the page, and refuses a page whose parse would exceed a bound with a 422 "too complex".
 */

/** How much of each kind of parser work a page asks for. */
export interface ParseWork {
  elements: number;
  /** The deepest the parser's stack of open elements gets. */
  depth: number;
  /** Elements and text nodes the parser appends while it reads the tags. */
  nodes: number;
  /**
   * Steps to close the elements left open at the end of the page: children moved up (\`reparented\`) plus children
   * passed over to remove each open element from its parent (\`scanned\`).
   */
  unclosedMoves: number;
  reparented: number;
  scanned: number;
  /** `<!--` and `<![CDATA[` that no terminator follows: each costs a scan to the end of the page. */
  unterminated: number;
}

/** Refuses a page whose parse would take more than the bounds allow; returns the work measured. */
export function assertParseable(html: string): ParseWork {
  const unterminated = unterminatedOpeners(html);
  if (unterminated > LIMITS.autoConfigureUnterminatedComments) {
    throw tooComplex(`more than ${LIMITS.autoConfigureUnterminatedComments} unterminated comments`);
  }
  const work = { ...replayParse(html), unterminated };
  if (work.elements > LIMITS.autoConfigurePageElements) {
    throw tooComplex(`more than ${LIMITS.autoConfigurePageElements.toLocaleString('en-US')} elements`);
  }
  if (work.depth > LIMITS.autoConfigurePageDepth) {
    throw tooComplex(
      `elements nested more than ${LIMITS.autoConfigurePageDepth.toLocaleString('en-US')} deep`,
    );
  }
  if (work.unclosedMoves > LIMITS.autoConfigureUnclosedMoves) {
    throw tooComplex('too many elements left open');
  }
  return work;
}

function tooComplex(why: string): FetchRefusal {
  return new FetchRefusal('too_complex', `page is too complex to read (${why})`);
}

/** Comment and CDATA openers with no terminator after them (CDATA only counts where the parser looks for it). */
function unterminatedOpeners(html: string): number {
  // An opener is unterminated when it ends after the last terminator starts.
  const count = (opener: string, terminator: string) => {
    const last = html.lastIndexOf(terminator);
    let found = 0;
    for (let at = html.indexOf(opener, Math.max(0, last - opener.length + 1)); at !== -1; found++) {
      at = html.indexOf(opener, at + 1);
    }
    return found;
  };
  return count('<!--', '-->') + (html.includes('<![CDATA[') ? count('<![CDATA[', ']]>') : 0);
}

// node-html-parser 9.0.7's tokenizer (kMarkupPattern, kMarkupPatternWithCDATA) and its test for `<a href=x/>`,
// which is not self-closing (kUnquotedAttributeValueAtEnd).
const TAG_NAME = String.raw`[a-zA-Z][-.:0-9_a-zA-Z@\xB7\xC0-\xD6\xD8-\xF6\u00F8-\u03A1\u03A3-\u03D9\u03DB-\u03EF\u03F7-\u03FF\u0400-\u04FF\u0500-\u052F\u1D00-\u1D2B\u1D6B-\u1D77\u1D79-\u1D9A\u1E00-\u1E9B\u1F00-\u1F15\u1F18-\u1F1D\u1F20-\u1F45\u1F48-\u1F4D\u1F50-\u1F57\u1F59\u1F5B\u1F5D\u1F5F-\u1F7D\u1F80-\u1FB4\u1FB6-\u1FBC\u1FBE\u1FC2-\u1FC4\u1FC6-\u1FCC\u1FD0-\u1FD3\u1FD6-\u1FDB\u1FE0-\u1FEC\u1FF2-\u1FF4\u1FF6-\u1FFC\u2126\u212A-\u212B\u2132\u214E\u2160-\u2188\u2C60-\u2C7F\uA722-\uA787\uA78B-\uA78E\uA790-\uA7AD\uA7B0-\uA7B7\uA7F7-\uA7FF\uAB30-\uAB5A\uAB5C-\uAB5F\uAB64-\uAB65\uFB00-\uFB06\uFB13-\uFB17\uFF21-\uFF3A\uFF41-\uFF5A\x37F-\u1FFF\u200C-\u200D\u203F-\u2040\u2070-\u218F\u2C00-\u2FEF\u3001-\uD7FF\uF900-\uFDCF\uFDF0-\uFFFD]*`;
const TAG = String.raw`<(\/?)(${TAG_NAME})((?:\s+[^>]*?(?:(?:'[^']*')|(?:"[^"]*"))?)*)\s*(\/?)>`;
export const MARKUP_PATTERN = new RegExp(String.raw`<!--[\s\S]*?-->|${TAG}`, 'gu');
export const MARKUP_PATTERN_WITH_CDATA = new RegExp(
  String.raw`<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|${TAG}`,
  'gu',
);
const UNQUOTED_VALUE_AT_END = /(?:^|\s)[^\s"'<>=/]+\s*=\s*[^\s"'<>`]+$/;
const FRAME = 'documentfragmentcontainer';
const BLOCK_TEXT = /^(?:script|noscript|style|pre)$/i;

const bothCases = (names: string) => names.split(' ').flatMap((name) => [name, name.toUpperCase()]);
const VOID = new Set(bothCases('area base br col embed hr img input link meta param source track wbr'));
/** Its parent tag (either case) → the tags (lower or upper case) whose opening closes it. */
const CLOSED_BY_OPENING = tagTable({
  li: 'li',
  p: 'p div',
  b: 'div',
  td: 'td th tr tbody tfoot',
  th: 'td th tr tbody tfoot',
  tr: 'tr tbody tfoot',
  thead: 'tbody tfoot',
  tbody: 'tbody tfoot',
  h1: 'h1',
  h2: 'h2',
  h3: 'h3',
  h4: 'h4',
  h5: 'h5',
  h6: 'h6',
  dt: 'dt dd',
  dd: 'dt dd',
});
/** An open tag (upper case) → the closing tags that close it too. */
const CLOSED_BY_CLOSING = tagTable({
  li: 'ul ol',
  a: 'div',
  b: 'div',
  i: 'div',
  p: 'div',
  td: 'tr table thead tbody tfoot',
  th: 'tr table thead tbody tfoot',
  tr: 'table thead tbody tfoot',
  tbody: 'table',
  tfoot: 'table',
  dt: 'dl body html',
  dd: 'dl body html',
});
/** A `</x>` closes an open `<p>` whose parent is an x, except for these x. */
const P_NOT_CLOSED_BY = new Set(['a', 'audio', 'del', 'ins', 'map', 'noscript', 'video']);

function tagTable(table: Record<string, string>): Map<string, Set<string>> {
  return new Map(
    Object.entries(table).flatMap(([tag, closers]) => {
      const set = new Set(bothCases(closers));
      return [
        [tag, set],
        [tag.toUpperCase(), set],
      ];
    }),
  );
}

interface OpenElement {
  /** As written (null for the root). */
  tag: string | null;
  children: number;
}

/** node-html-parser's base_parse and parse, counting instead of building (see its dist/index.mjs). */
function replayParse(html: string): Omit<ParseWork, 'unterminated'> {
  const data = `<${FRAME}>${html}</${FRAME}>`;
  const hasCdata = data.includes('<![CDATA[');
  const pattern = new RegExp(hasCdata ? MARKUP_PATTERN_WITH_CDATA : MARKUP_PATTERN);
  const root: OpenElement = { tag: null, children: 0 };
  const stack = [root];
  const top = () => stack[stack.length - 1] as OpenElement;
  let elements = 0;
  let depth = 0;
  let nodes = 0;
  const append = () => {
    top().children++;
    nodes++;
  };
  let lastTextPos = -1;
  for (let match = pattern.exec(data); match !== null; match = pattern.exec(data)) {
    const [matchText, , tagName = '', attributes = ''] = match;
    let leadingSlash = match[1] ?? '';
    let closingSlash = match[4] ?? '';
    const tagEndPos = pattern.lastIndex;
    if (closingSlash && !leadingSlash && UNQUOTED_VALUE_AT_END.test(attributes) && !VOID.has(tagName)) {
      closingSlash = '';
    }
    if (lastTextPos > -1 && lastTextPos + matchText.length < tagEndPos) append();
    lastTextPos = pattern.lastIndex;
    if (hasCdata && matchText.startsWith('<![CDATA[')) {
      append();
      continue;
    }
    if (tagName === FRAME || matchText[1] === '!') continue;
    if (!leadingSlash) {
      elements++;
      if (!closingSlash) {
        while (CLOSED_BY_OPENING.get(top().tag ?? '')?.has(tagName)) stack.pop();
      }
      append();
      stack.push({ tag: tagName, children: 0 });
      depth = Math.max(depth, stack.length - 1);
      // Past a bound the answer is known: stop reading.
      if (elements > LIMITS.autoConfigurePageElements || depth > LIMITS.autoConfigurePageDepth) break;
      if (BLOCK_TEXT.test(tagName)) {
        const closeIndex = data.indexOf(`</${tagName}>`, pattern.lastIndex);
        const textEnd = closeIndex === -1 ? data.length - FRAME.length - 3 : closeIndex;
        if (/\S/.test(data.substring(tagEndPos, textEnd))) append();
        if (closeIndex === -1) {
          lastTextPos = pattern.lastIndex = data.length + 1;
        } else {
          lastTextPos = pattern.lastIndex = closeIndex + tagName.length + 3;
          leadingSlash = '/';
        }
      }
    }
    if (leadingSlash || closingSlash || VOID.has(tagName)) closeElement(stack, tagName);
  }
  return { elements, depth, nodes, ...closeLeftOpen(stack) };
}

/** The parser's loop for a closing (or self-closed, or void) tag: what it pops. */
function closeElement(stack: OpenElement[], tagName: string): void {
  for (;;) {
    const current = stack[stack.length - 1] as OpenElement;
    if (current.tag === tagName) {
      stack.pop();
      return;
    }
    if (current.tag !== null && CLOSED_BY_CLOSING.get(current.tag.toUpperCase())?.has(tagName)) {
      stack.pop();
      continue;
    }
    const container = stack[stack.length - 2];
    if (
      current.tag?.toLowerCase() === 'p' &&
      container?.tag?.toLowerCase() === tagName.toLowerCase() &&
      !P_NOT_CLOSED_BY.has(tagName.toLowerCase())
    ) {
      stack.pop();
      continue;
    }
    return;
  }
}

/**
 * The parser's fix-up of the elements still open at the end: each one's children move to its parent (or, after an
 * element of the same tag, to its grandparent), every move and every scan of a child list costing one step.
 */
function closeLeftOpen(stack: OpenElement[]): Pick<ParseWork, 'unclosedMoves' | 'reparented' | 'scanned'> {
  let reparented = 0;
  let scanned = 0;
  while (stack.length > 1) {
    const last = stack.pop() as OpenElement;
    const oneBefore = stack[stack.length - 1] as OpenElement;
    if (stack.length < 2) continue;
    scanned += oneBefore.children;
    reparented += last.children;
    if (last.tag?.toUpperCase() === oneBefore.tag?.toUpperCase()) {
      (stack[stack.length - 2] as OpenElement).children += last.children;
      oneBefore.children -= 1;
      stack.pop();
    } else {
      oneBefore.children += last.children - 1;
    }
  }
  return { unclosedMoves: reparented + scanned, reparented, scanned };
}
