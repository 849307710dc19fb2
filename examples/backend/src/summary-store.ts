// Summaries in a folder, one JSON file per crawl under the customer's folder:
// <dir>/<customer>/<crawlId>.json. Written whole and renamed into place, so a reader never sees
// half a file and a retried activity replaces its own file.
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CrawlSummary, SummaryStore } from './activities.js';

export interface FolderSummaryStore extends SummaryStore {
  /** The customer's summaries, oldest first. */
  list(customer: string): Promise<CrawlSummary[]>;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export function createFolderSummaryStore(dir: string): FolderSummaryStore {
  return {
    async save(summary) {
      // Names become paths: the starter allows only these characters, checked again here.
      if (!SAFE_NAME.test(summary.customer) || !SAFE_NAME.test(summary.crawlId)) throw new Error(`summary of ${JSON.stringify(summary.crawlId)}: customer and crawlId must be file names`);
      const folder = join(dir, summary.customer);
      await mkdir(folder, { recursive: true });
      const file = join(folder, `${summary.crawlId}.json`);
      await writeFile(`${file}.partial`, `${JSON.stringify(summary, null, 2)}\n`);
      await rename(`${file}.partial`, file);
    },
    async list(customer) {
      const folder = join(dir, customer);
      const names = await readdir(folder).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return [];
        throw err;
      });
      const summaries = await Promise.all(names.filter((n) => n.endsWith('.json')).map(async (n) => JSON.parse(await readFile(join(folder, n), 'utf8')) as CrawlSummary));
      return summaries.sort((a, b) => a.finishedAt.localeCompare(b.finishedAt));
    },
  };
}
