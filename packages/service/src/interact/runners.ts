// Code execution in a browser session, shared by interact (scrape-bound sessions) and
// POST /v2/browser/{id}/execute (standalone sessions): node, python or bash.
import type { BrowserSessionManager } from '../browser/session-manager.js';
import type { BrowserSession } from '../browser/session.js';
import { runBash, stopAgentBrowser } from './agent-browser.js';
import type { ExecResult } from './exec-result.js';
import { NodeRunner } from './node-runner.js';
import { runPython } from './python-runner.js';

export type CodeLanguage = 'node' | 'python' | 'bash';

export class SessionRunners {
  private readonly node = new Map<string, NodeRunner>();
  private readonly bash = new Set<string>();

  constructor(manager: BrowserSessionManager) {
    manager.onDestroy(async (s) => {
      this.node.get(s.id)?.close();
      this.node.delete(s.id);
      if (this.bash.delete(s.id)) await stopAgentBrowser(s.id, s.chromiumProcess.port);
    });
  }

  /** Runs code against the session's current tab; the session counts as busy (active) meanwhile. */
  async execute(session: BrowserSession, language: CodeLanguage, code: string, timeoutSec: number): Promise<ExecResult> {
    const page = await session.currentPage();
    switch (language) {
      case 'node': {
        let runner = this.node.get(session.id);
        if (!runner) this.node.set(session.id, (runner = new NodeRunner(session.chromiumProcess.wsEndpoint)));
        return runner.run(code, await session.targetId(page), timeoutSec);
      }
      case 'python':
        return runPython(code, session.chromiumProcess.wsEndpoint, await session.targetId(page), timeoutSec);
      case 'bash':
        this.bash.add(session.id);
        return runBash(code, session.id, session.chromiumProcess.port, timeoutSec);
    }
  }
}

const byManager = new WeakMap<BrowserSessionManager, SessionRunners>();

export function sessionRunners(manager: BrowserSessionManager): SessionRunners {
  let runners = byManager.get(manager);
  if (!runners) byManager.set(manager, (runners = new SessionRunners(manager)));
  return runners;
}
