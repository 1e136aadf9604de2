import { statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { autoConfigure } from '../shared/autoconfigure/index.ts';
import { FetchRefusal } from '../shared/outbound/refusal.ts';
import {
  file,
  html,
  OWN_FIXTURES,
  REAL_SITE_FIXTURES,
  type Route,
  respond,
  startFixtureServer,
} from '../test/shared/autoconfigure/fixture-server.ts';
import { HOSTILE_PAGES } from '../test/support/hostile-pages.ts';
import { percentile } from './measure.ts';
import { autoConfigureCpuTable, type PageCpu } from './report.ts';

/**
 * Auto-configure's CPU per page: the domain call as the handler makes it (fetch from a local site,
 * decode, the complexity check, parse, extract, the manifest), its process CPU time (user + system) measured
 * around it, for real pages next to each hostile page of the largest size read. A hostile page must cost at most
 * about a second (CPU_TARGET_MS, report.ts): its answer is suggestions or the 422 "too complex", within that.
 */

interface BenchPage {
  name: string;
  kind: PageCpu['kind'];
  route: Route;
  bytes: number;
  manifest?: Route;
}

function pages(): BenchPage[] {
  const real = [
    ['brand fixture with its manifest', OWN_FIXTURES, 'brand.html'],
    ['real page: theverge.html (300 KB)', REAL_SITE_FIXTURES, 'theverge.html'],
    ['real page: greatbritishchefs.html (420 KB)', REAL_SITE_FIXTURES, 'greatbritishchefs.html'],
  ] as const;
  return [
    ...real.map(([name, directory, fileName]) => ({
      name,
      kind: 'real' as const,
      route: file(directory, fileName),
      bytes: statSync(path.join(directory, fileName)).size,
    })),
    ...HOSTILE_PAGES.map((page) => {
      const text = page.html();
      const manifest = page.manifest?.();
      return {
        name: page.name,
        kind: 'hostile' as const,
        route: html(text),
        bytes: text.length + (manifest?.length ?? 0),
        ...(manifest === undefined
          ? {}
          : { manifest: respond(manifest, { 'content-type': 'application/manifest+json' }) }),
      };
    }),
  ];
}

export async function measureAutoConfigureCpu(runs = { real: 10, hostile: 3 }): Promise<PageCpu[]> {
  const list = pages();
  const routes: Record<string, Route> = {
    '/site.webmanifest': file(OWN_FIXTURES, 'brand.webmanifest', 'application/manifest+json'),
  };
  for (const [index, page] of list.entries()) {
    routes[`/${index}/`] = page.route;
    if (page.manifest) routes['/site.webmanifest'] = page.manifest;
  }
  const site = await startFixtureServer(routes);
  const results: PageCpu[] = [];
  try {
    for (const [index, page] of list.entries()) {
      const url = site.url(`/${index}/`);
      const samples: number[] = [];
      let outcome = '';
      const count = runs[page.kind];
      for (let run = 0; run <= count; run++) {
        const before = process.cpuUsage();
        outcome = await autoConfigure(url, { allowLoopback: true }).then(
          () => '200',
          (error: unknown) => {
            if (error instanceof FetchRefusal) return `422 ${error.reason}`;
            throw error;
          },
        );
        const used = process.cpuUsage(before);
        // The first run warms the JIT and is not counted.
        if (run > 0) samples.push((used.user + used.system) / 1000);
      }
      results.push({
        page: page.name,
        kind: page.kind,
        bytes: page.bytes,
        outcome,
        runs: samples.length,
        cpuP50Ms: percentile(samples, 50),
        cpuMaxMs: Math.max(...samples),
      });
    }
  } finally {
    await site.close();
  }
  return results;
}

// `npx tsx bench/autoconfigure-cpu.ts`: this part of the bench alone.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(autoConfigureCpuTable(await measureAutoConfigureCpu()));
}
