// Runs interact `node` code in a per-session child process (node-runner-child.ts), so a
// timeout really kills the code and user code never runs inside the service process.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError } from '../core/http-error.js';
import { outputTail } from '../core/output-tail.js';
import { killedResult, type ExecResult } from './exec-result.js';

// Next to this module: node-runner-child.ts when running from sources, .js when compiled.
const OWN_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const CHILD = fileURLToPath(new URL(`./node-runner-child${OWN_EXTENSION}`, import.meta.url));
const STARTUP_TIMEOUT_MS = 60_000;

interface Reply { id: number; stdout: string; stderr: string; result: string | null; exitCode: number; error?: string }

export class NodeRunner {
  private child?: ChildProcess;
  private ready?: Promise<void>;
  private exited?: Promise<'exit'>;
  private seq = 0;
  private readonly waiting = new Map<number, (r: Reply) => void>();
  /** Output streamed so far by the running call, kept for a timeout's report. */
  private partial = { id: 0, stdout: '', stderr: '' };

  constructor(private readonly cdpEndpoint: string) {}

  private start(): Promise<void> {
    if (this.ready && this.child && this.child.exitCode === null && this.child.signalCode === null) return this.ready;
    // The child's temporary files (Playwright's artifacts folder of its CDP connection, which a
    // killed child never removes) go in a folder of its own, removed when it exits.
    const tmp = mkdtempSync(join(tmpdir(), 'webdata-node-runner-'));
    const child = fork(CHILD, [], {
      // From sources (the repo's tests) the child is TypeScript: load tsx by absolute URL.
      execArgv: OWN_EXTENSION === '.ts' ? ['--import', import.meta.resolve('tsx')] : [],
      env: { ...process.env, WEBDATA_CDP_ENDPOINT: this.cdpEndpoint, TMPDIR: tmp },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', () => {
      rmSync(tmp, { recursive: true, force: true });
      resolve('exit');
    }));
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-4000); });
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        const chunk = m as { output?: number; stream?: 'out' | 'err'; text?: string };
        if (chunk.output !== undefined) {
          if (chunk.output === this.partial.id) {
            if (chunk.stream === 'out') this.partial.stdout += chunk.text ?? '';
            else this.partial.stderr += chunk.text ?? '';
          }
        } else if ((m as { ready?: boolean }).ready) resolve();
        else {
          const reply = m as Reply;
          this.waiting.get(reply.id)?.(reply);
          this.waiting.delete(reply.id);
        }
      };
      child.on('message', onMessage);
      child.once('exit', (code) => {
        reject(new HttpError(502, `Node execution environment exited (${code}): ${outputTail(stderr)}`, { code: 'INTERACT_EXECUTION_FAILED' }));
        if (this.child === child) this.child = undefined;
      });
    });
    return this.ready;
  }

  async run(code: string, targetId: string, timeoutSec: number): Promise<ExecResult> {
    // Starting the runner (Node, tsx, a CDP connection) is infrastructure, not the caller's
    // code: it has its own limit and never eats into the caller's timeout.
    await this.startWithin(STARTUP_TIMEOUT_MS);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutSec * 1000); });
    try {
      const id = ++this.seq;
      this.partial = { id, stdout: '', stderr: '' };
      const child = this.child!;
      const reply = new Promise<Reply>((resolve) => this.waiting.set(id, resolve));
      child.send({ id, code, targetId });
      const outcome = await Promise.race([reply, this.exited!, timedOut]);
      if (outcome === 'timeout') {
        const { stdout, stderr } = this.partial;
        this.kill();
        return killedResult({ stdout, stderr }, timeoutSec);
      }
      if (outcome === 'exit') {
        throw new HttpError(502, 'Node execution environment crashed during the run', { code: 'INTERACT_EXECUTION_FAILED' });
      }
      return {
        stdout: outcome.stdout, stderr: outcome.stderr, result: outcome.result, exitCode: outcome.exitCode,
        killed: false, ...(outcome.error ? { error: outcome.error } : {}),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  private async startWithin(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new HttpError(502, `Node execution environment did not start within ${ms / 1000} s`, { code: 'INTERACT_EXECUTION_FAILED' })), ms);
    });
    try {
      await Promise.race([this.start(), late]);
    } catch (err) {
      this.kill();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  private kill(): void {
    this.child?.kill('SIGKILL');
    this.child = undefined;
    this.ready = undefined;
    this.waiting.clear();
  }

  close(): void {
    this.kill();
  }
}
