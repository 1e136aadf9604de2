/**
 * Where JSON text first breaks the grammar (RFC 8259), for a 400 that says where to look. V8 names the
 * position in most of its messages but not in all (`Unexpected token '}', "{"a":}" is not valid JSON`), so
 * this walks the text itself; it runs only once JSON.parse has refused the text, whose nesting the caller
 * has already bounded (the recursion is as deep as the text's nesting).
 */
export function syntaxErrorPosition(text: string): number {
  let i = 0;
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const expect = (char: string) => (text[i] === char ? i++ : fail());
  const string = () => {
    expect('"');
    while (i < text.length && text[i] !== '"') {
      const code = text.charCodeAt(i);
      if (code < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(text[i + k] ?? '')) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    expect('"');
  };
  const value = (): void => {
    space();
    const char = text[i];
    if (char === '{' || char === '[') {
      const close = char === '{' ? '}' : ']';
      i++;
      space();
      if (text[i] === close) {
        i++;
        return;
      }
      for (;;) {
        if (close === '}') {
          space();
          string();
          space();
          expect(':');
        }
        value();
        space();
        if (text[i] === ',') i++;
        else {
          expect(close);
          return;
        }
      }
    }
    if (char === '"') {
      string();
      return;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (char === literal[0]) {
        for (const letter of literal) expect(letter);
        return;
      }
    }
    const number = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 1100));
    if (!number || number[0] === '') fail();
    i += (number as RegExpExecArray)[0].length;
  };
  try {
    value();
    space();
    if (i < text.length) fail();
  } catch (position) {
    if (typeof position === 'number') return position;
    throw position;
  }
  return text.length;
}

/** `line 2, column 7 (character 15)`: a position in the text, as an editor counts it (from 1). */
export function describePosition(text: string, position: number): string {
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return `line ${line}, column ${column} (character ${position + 1})`;
}
