// A bench's test site in a process of its own: the demo site or the rich site, so the CPU that
// serving pages costs is not counted as the service's. The parent asks for the site's CPU over
// the IPC channel (process.cpuUsage(), microseconds) whenever it wants a figure, and the site
// exits when the parent says so or goes away.
//
// Child side: `node <flags> site-process.ts demo|rich <pages>`; sends {url, pageBytes} once
// listening, answers 'cpu' with {cpuUs}, exits on 'close' or on disconnect.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDemoSite } from '../../packages/service/src/demo-site/index.js';
import { startRichSite } from './rich-site.js';

export type SiteKind = 'demo' | 'rich';

export interface SiteProcess {
  url: string;
  /** Mean bytes of a page (rich site); NaN for the demo site. */
  pageBytes: number;
  pid: number;
  /** The site process's CPU (user + system) since it started, in ms. */
  cpuMs(): Promise<number>;
  close(): Promise<void>;
}

type FromSite = { url: string; pageBytes: number } | { cpuUs: number };

const SELF = fileURLToPath(import.meta.url);

/**
 * Starts the site in a child process with this process's node flags (the source condition and
 * tsx), less --cpu-prof and its options: a profile run profiles the service, not the site.
 */
export function startSiteProcess(kind: SiteKind, pages: number): Promise<SiteProcess> {
  const flags: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const flag = process.execArgv[i];
    if (!flag.startsWith('--cpu-prof')) flags.push(flag);
    // `--cpu-prof-dir dir` (and -name, -interval) takes the next argument as its value.
    else if (flag !== '--cpu-prof' && !flag.includes('=')) i++;
  }
  const child = spawn(process.execPath, [...flags, SELF, kind, String(pages)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: Array<{ answer: (cpuUs: number) => void; fail: (err: Error) => void }> = [];
  // A site that dies fails the figures asked of it, rather than leaving the bench waiting.
  child.once('exit', (code, signal) => {
    for (const w of waiting.splice(0)) w.fail(new Error(`${kind} site process exited (${signal ?? `code ${code}`})`));
  });
  return new Promise((resolve, reject) => {
    const failed = (code: number | null) => reject(new Error(`${kind} site process exited (code ${code}) before listening`));
    child.once('error', reject);
    child.once('exit', failed);
    child.on('message', (msg: FromSite) => {
      if ('cpuUs' in msg) {
        waiting.shift()?.answer(msg.cpuUs);
        return;
      }
      child.off('exit', failed);
      resolve({
        url: msg.url,
        pageBytes: msg.pageBytes,
        pid: child.pid ?? -1,
        cpuMs: () => new Promise((answer, fail) => {
          if (!child.connected) return fail(new Error(`${kind} site process is gone`));
          waiting.push({ answer: (us) => answer(us / 1000), fail });
          child.send('cpu');
        }),
        close: () => stop(child),
      });
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (child.connected) child.send('close');
    else child.kill('SIGTERM');
  });
}

async function main(): Promise<void> {
  const [kind, count] = process.argv.slice(2);
  const pages = Number(count);
  if ((kind !== 'demo' && kind !== 'rich') || !Number.isInteger(pages) || pages < 1) throw new Error(`usage: site-process.ts demo|rich <pages> (got ${kind} ${count})`);
  const site = kind === 'rich' ? await startRichSite(pages) : await startDemoSite({ pages }).then((demo) => ({ url: demo.url, pageBytes: Number.NaN, close: () => demo.close() }));
  const send = (msg: FromSite) => process.send?.(msg);
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    void site.close().finally(() => process.exit(0));
  };
  process.on('message', (msg: unknown) => {
    if (msg === 'cpu') {
      const cpu = process.cpuUsage();
      send({ cpuUs: cpu.user + cpu.system });
    } else if (msg === 'close') close();
  });
  process.on('disconnect', close);
  send({ url: site.url, pageBytes: site.pageBytes });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main();
}
