// Which mdream engine turns HTML into markdown. All three run the same converter: mdream's Rust
// core as a native binding (package `mdream` with its platform package), the same core compiled
// to WebAssembly (shipped inside `mdream`, so it loads on every platform and Node version), and
// the JavaScript port (@mdream/js). They give the same markdown on the fixture set
// (test/markdown-engines.test.ts); per 15 KB page the native one takes about a sixth of the JS
// engine's CPU and WebAssembly about a third. npm installs the platform package only on Node 22
// and later (its `engines`), so on Node 20 the WebAssembly build is what runs. An engine is
// imported only when the ones before it failed to load.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export const MARKDOWN_ENGINES = ['native', 'wasm', 'js'] as const;
export type MarkdownEngineName = (typeof MARKDOWN_ENGINES)[number];

/** What the native pass (native-pass.ts) asks of mdream beyond the HTML. */
export interface PageOptions {
  /** Root-relative links and images are made absolute against it. */
  origin: string;
}

export interface MarkdownEngine {
  name: MarkdownEngineName;
  /** HTML → markdown, without options: the HTML is prepared for it (clean.ts, prepareForMarkdown). */
  convert(html: string): string;
  /** HTML with root-relative URLs → markdown with them absolute; only the native engine has it. */
  convertPage?: (html: string, options: PageOptions) => string;
}

/** An engine's conversion, with its whole-page form where it has one. */
export type EngineConvert = ((html: string) => string) & { page?: (html: string, options: PageOptions) => string };
export type EngineLoaders = Record<MarkdownEngineName, () => Promise<EngineConvert>>;

export const ENGINE_LOADERS: EngineLoaders = {
  native: async () => {
    const { htmlToMarkdown } = await import('mdream').catch(async (err: unknown) => {
      // mdream's own message blames an npm bug; the usual cause is the platform package's `engines`.
      throw new Error(`no native binding for ${process.platform}-${process.arch} on Node ${process.versions.node} `
        + `(npm installs mdream's platform package on Node 22 and later; on Node 20 install it by name, `
        + `npm install ${await platformPackage()}): ${firstSentence(err)}`);
    });
    const page = (html: string, { origin }: PageOptions) => htmlToMarkdown(html, { origin });
    return Object.assign((html: string) => htmlToMarkdown(html), { page });
  },
  wasm: async () => {
    const wasm = await import('mdream/wasm');
    wasm.initSync({ module: await readFile(fileURLToPath(import.meta.resolve('mdream/wasm/mdream_edge_bg.wasm'))) });
    return (html) => wasm.htmlToMarkdown(html, {});
  },
  js: async () => {
    const { htmlToMarkdown } = await import('@mdream/js');
    return (html) => htmlToMarkdown(html);
  },
};

/** The variable that pins one engine (for comparisons and benchmarks); unset, the fastest that loads runs. */
export const ENGINE_ENV = 'WEBDATA_MARKDOWN_ENGINE';

export interface SelectedEngine extends MarkdownEngine {
  /** Why a faster engine is not the one running, e.g. "native: Cannot find native binding". */
  skipped: string[];
}

/** Loads one engine; rejects when it cannot load here. */
export async function loadMarkdownEngine(name: MarkdownEngineName, loaders: EngineLoaders = ENGINE_LOADERS): Promise<MarkdownEngine> {
  const convert = await loaders[name]();
  return convert.page ? { name, convert, convertPage: convert.page } : { name, convert };
}

/** The first engine that loads, in order native, wasm, js; or only `pinned` when given. */
export async function selectMarkdownEngine(pinned?: string, loaders: EngineLoaders = ENGINE_LOADERS): Promise<SelectedEngine> {
  if (pinned) {
    if (!(MARKDOWN_ENGINES as readonly string[]).includes(pinned)) {
      throw new Error(`${ENGINE_ENV} must be one of ${MARKDOWN_ENGINES.join(', ')}, got "${pinned}"`);
    }
    return { ...(await loadMarkdownEngine(pinned as MarkdownEngineName, loaders)), skipped: [] };
  }
  const skipped: string[] = [];
  for (const name of MARKDOWN_ENGINES) {
    try {
      return { ...(await loadMarkdownEngine(name, loaders)), skipped };
    } catch (err) {
      skipped.push(`${name}: ${firstSentence(err)}`);
    }
  }
  throw new Error(`no markdown engine loads (${skipped.join('; ')})`);
}

/** mdream's platform package for this machine at mdream's version, e.g. @mdream/rust-linux-x64-gnu@1.7.2. */
async function platformPackage(): Promise<string> {
  const glibc = process.platform === 'linux'
    ? ((process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime ? '-gnu' : '-musl')
    : '';
  let version = '';
  try {
    const manifest = fileURLToPath(new URL('../package.json', import.meta.resolve('mdream')));
    version = `@${(JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version}`;
  } catch {
    // Without mdream's manifest the name alone still says what is missing.
  }
  return `@mdream/rust-${process.platform}-${process.arch}${glibc}${version}`;
}

function firstSentence(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return /^[^\n]*?[^.\n](?=\.(\s|$))|^[^\n]*/.exec(message)![0];
}

/** The engine of this process (and of each conversion thread, which selects its own the same way). */
export const markdownEngine: SelectedEngine = await selectMarkdownEngine(process.env[ENGINE_ENV] || undefined);

/** One line for the startup banner: the engine running and, when it is not the native one, why. */
export function describeMarkdownEngine(engine: SelectedEngine = markdownEngine): string {
  const pinned = process.env[ENGINE_ENV] ? ` (pinned by ${ENGINE_ENV})` : '';
  const why = engine.skipped.length > 0 ? ` (${engine.skipped.join('; ')})` : '';
  return `markdown engine: mdream ${engine.name}${pinned}${why}`;
}
