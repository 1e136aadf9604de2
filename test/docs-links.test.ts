import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './support/processes.ts';

/**
 * The README and the docs pages link to each other and to the repository's files: every relative link
 * names a file that exists, inside the repository, and every `#anchor` a heading of the page it names
 * (anchors as GitHub makes them from headings).
 */
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** A page's text without its code: fenced blocks and inline code spans hold no links. */
function proseOf(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a page's headings; a repeated heading's anchor takes -1, -2, … as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const withoutFences = markdown.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '');
  for (const [, heading] of withoutFences.matchAll(/^#{1,6} (.+)$/gm)) {
    const anchor = anchorOf(heading ?? '');
    const times = seen.get(anchor) ?? 0;
    anchors.add(times ? `${anchor}-${times}` : anchor);
    seen.set(anchor, times + 1);
  }
  return anchors;
}

interface Link {
  page: string;
  target: string;
}

/** The relative links of the pages (no scheme: not `https:`, `mailto:`). */
const links: Link[] = PAGES.flatMap((page) =>
  [...proseOf(readFileSync(join(ROOT, page), 'utf8')).matchAll(/\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)/gm)]
    .map(([, inline, reference]) => (inline ?? reference) as string)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => ({ page, target })),
);

/** The file a link names, as a path from the repository's root. */
const fileOf = ({ page, target }: Link) => {
  const path = target.split('#')[0] ?? '';
  return path ? relative(ROOT, resolve(ROOT, dirname(page), decodeURI(path))) : page;
};

describe('links in the README and docs/', () => {
  it('anchors headings as GitHub does', () => {
    expect(anchorOf('Admin CLI (stands in for the team dashboard)')).toBe(
      'admin-cli-stands-in-for-the-team-dashboard',
    );
    expect(anchorOf('Inside shared/')).toBe('inside-shared');
    expect([...anchorsOf('# Cost\n## A\n```sh\n# not a heading\n```\n## A\n')]).toEqual(['cost', 'a', 'a-1']);
  });

  it('has the README link every docs page', () => {
    const linked = new Set(links.filter(({ page }) => page === 'README.md').map(fileOf));
    expect(PAGES.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });

  it('names files that exist, inside the repository', () => {
    const broken = links.filter((link) => {
      const file = fileOf(link);
      return file.startsWith('..') || !existsSync(join(ROOT, file));
    });
    expect(broken.map(({ page, target }) => `${page}: ${target}`)).toEqual([]);
  });

  it('names, in its text, source files that exist (a moved or split module is named where it is now)', () => {
    const named = PAGES.flatMap((page) =>
      [
        ...readFileSync(join(ROOT, page), 'utf8').matchAll(
          /(?<![\w./-])((?:shared|lib|bin|functions|test|bench|client|examples)\/[\w./-]+\.ts)\b/g,
        ),
      ].map(([, path]) => ({ page, path: path as string })),
    );
    expect(named.length).toBeGreaterThan(50);
    const missing = named.filter(({ path }) => !existsSync(join(ROOT, path)));
    expect([...new Set(missing.map(({ page, path }) => `${page}: ${path}`))]).toEqual([]);
  });

  it('names, after #, a heading of the page linked', () => {
    const anchored = links.filter(({ target }) => target.includes('#'));
    expect(anchored.length).toBeGreaterThan(20);
    const missing = anchored.filter((link) => {
      const file = fileOf(link);
      if (!file.endsWith('.md') || !existsSync(join(ROOT, file))) return true;
      const anchor = decodeURIComponent(link.target.slice(link.target.indexOf('#') + 1));
      return !anchorsOf(readFileSync(join(ROOT, file), 'utf8')).has(anchor);
    });
    expect(missing.map(({ page, target }) => `${page}: ${target}`)).toEqual([]);
  });
});
