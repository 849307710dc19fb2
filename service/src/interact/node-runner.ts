// Runs interact `node` code in a per-session child process (node-runner-child.ts), so a
// timeout really kills the code and user code never runs inside the service process.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HttpError } from '../core/contract.js';
import { killedResult, type ExecResult } from './exec-result.js';

const CHILD = fileURLToPath(new URL('./node-runner-child.ts', import.meta.url));

interface Reply { id: number; stdout: string; stderr: string; result: string | null; exitCode: number; error?: string }

export class NodeRunner {
  private child?: ChildProcess;
  private ready?: Promise<void>;
  private seq = 0;
  private readonly waiting = new Map<number, (r: Reply) => void>();

  constructor(private readonly cdpEndpoint: string) {}

  private start(): Promise<void> {
    if (this.ready && this.child && this.child.exitCode === null && this.child.signalCode === null) return this.ready;
    const child = fork(CHILD, [], {
      // The child is TypeScript like the rest of the service: load tsx by absolute URL.
      execArgv: ['--import', import.meta.resolve('tsx')],
      env: { ...process.env, WEBDATA_CDP_ENDPOINT: this.cdpEndpoint },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.child = child;
    let stderr = '';
    child.stderr?.on('data', (c: Buffer) => { stderr = (stderr + c.toString()).slice(-4000); });
    this.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if ((m as { ready?: boolean }).ready) resolve();
        else {
          const reply = m as Reply;
          this.waiting.get(reply.id)?.(reply);
          this.waiting.delete(reply.id);
        }
      };
      child.on('message', onMessage);
      child.once('exit', (code) => {
        reject(new HttpError(502, `Node execution environment exited (${code}): ${stderr.trim().slice(-500)}`, { code: 'INTERACT_EXECUTION_FAILED' }));
        if (this.child === child) this.child = undefined;
      });
    });
    return this.ready;
  }

  async run(code: string, targetId: string, timeoutSec: number): Promise<ExecResult> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => { timer = setTimeout(() => resolve('timeout'), timeoutSec * 1000); });
    try {
      const startOrTimeout = await Promise.race([this.start(), timedOut]);
      if (startOrTimeout === 'timeout') {
        this.kill();
        return killedResult({}, timeoutSec);
      }
      const id = ++this.seq;
      const child = this.child!;
      const reply = new Promise<Reply | 'exit'>((resolve) => {
        this.waiting.set(id, resolve);
        child.once('exit', () => resolve('exit'));
      });
      child.send({ id, code, targetId });
      const outcome = await Promise.race([reply, timedOut]);
      if (outcome === 'timeout') {
        this.kill();
        return killedResult({}, timeoutSec);
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
