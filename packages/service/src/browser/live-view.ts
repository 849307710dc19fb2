// Streams one session's screen to live-view viewers with CDP Page.startScreencast and,
// for interactive viewers, turns their clicks, wheel and keys into Input.* events.
import type { CDPSession, Page } from 'playwright-core';
import type { WebSocket } from 'ws';
import type { BrowserSession } from './session.js';

interface FrameMetadata {
  deviceWidth: number;
  deviceHeight: number;
  offsetTop: number;
}

interface Viewer {
  ws: WebSocket;
  interactive: boolean;
}

/** Messages an interactive viewer sends; x/y are fractions (0..1) of the displayed frame. */
export type ViewerInput =
  | { type: 'click'; x: number; y: number; button?: 'left' | 'right' | 'middle' }
  | { type: 'wheel'; x: number; y: number; deltaX: number; deltaY: number }
  | { type: 'key'; key: string }
  | { type: 'text'; text: string };

const SPECIAL_KEYS: Record<string, { code: number; text?: string }> = {
  Enter: { code: 13, text: '\r' }, Backspace: { code: 8 }, Tab: { code: 9 }, Escape: { code: 27 },
  ArrowLeft: { code: 37 }, ArrowUp: { code: 38 }, ArrowRight: { code: 39 }, ArrowDown: { code: 40 },
  Delete: { code: 46 }, Home: { code: 36 }, End: { code: 35 }, PageUp: { code: 33 }, PageDown: { code: 34 },
};

export class LiveView {
  private readonly viewers = new Set<Viewer>();
  private cdp?: CDPSession;
  private page?: Page;
  private lastFrame?: { data: string; metadata: FrameMetadata };
  private switching: Promise<void> = Promise.resolve();
  private input: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly session: BrowserSession, private readonly onInput: () => void) {
    // Follow the newest tab, as CDP clients may open one.
    session.context.on('page', () => this.follow());
  }

  add(ws: WebSocket, interactive: boolean): void {
    const viewer = { ws, interactive };
    this.viewers.add(viewer);
    if (this.lastFrame) this.sendFrame(viewer, this.lastFrame);
    ws.on('close', () => {
      this.viewers.delete(viewer);
      if (this.viewers.size === 0) this.follow();
    });
    ws.on('message', (raw) => {
      if (!interactive) return;
      let msg: ViewerInput;
      try {
        msg = JSON.parse(raw.toString()) as ViewerInput;
      } catch {
        return;
      }
      this.onInput();
      // One event at a time, in the order the viewer sent them.
      this.input = this.input.then(() => this.dispatch(msg)).catch(() => undefined);
    });
    this.follow();
  }

  /** Re-targets (or stops) the screencast after viewers or tabs changed; serialized. */
  private follow(): void {
    this.switching = this.switching.then(() => this.retarget()).catch(() => undefined);
  }

  private async retarget(): Promise<void> {
    if (this.stopped || !this.session.active || this.viewers.size === 0) return this.stopStream();
    const page = await this.session.currentPage();
    if (page === this.page && this.cdp) return;
    await this.stopStream();
    const cdp = await this.session.context.newCDPSession(page);
    this.page = page;
    this.cdp = cdp;
    page.once('close', () => this.follow());
    cdp.on('Page.screencastFrame', (frame: { data: string; sessionId: number; metadata: FrameMetadata }) => {
      cdp.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => undefined);
      this.lastFrame = { data: frame.data, metadata: frame.metadata };
      for (const v of this.viewers) this.sendFrame(v, this.lastFrame);
    });
    await cdp.send('Page.startScreencast', { format: 'jpeg', quality: 85, everyNthFrame: 1 });
  }

  private async stopStream(): Promise<void> {
    const cdp = this.cdp;
    this.cdp = undefined;
    this.page = undefined;
    if (cdp) {
      await cdp.send('Page.stopScreencast').catch(() => undefined);
      await cdp.detach().catch(() => undefined);
    }
  }

  private sendFrame(v: Viewer, frame: { data: string; metadata: FrameMetadata }): void {
    if (v.ws.readyState === v.ws.OPEN) v.ws.send(JSON.stringify({ type: 'frame', data: frame.data, metadata: frame.metadata }));
  }

  private async dispatch(msg: ViewerInput): Promise<void> {
    // Input that arrives while the stream (re)attaches waits for it instead of being lost.
    await this.switching;
    const cdp = this.cdp;
    const meta = this.lastFrame?.metadata;
    if (!cdp) return;
    const point = (fx: number, fy: number) => ({
      x: Math.max(0, fx) * (meta?.deviceWidth ?? 0),
      y: (meta?.offsetTop ?? 0) + Math.max(0, fy) * (meta?.deviceHeight ?? 0),
    });
    switch (msg.type) {
      case 'click': {
        const { x, y } = point(msg.x, msg.y);
        const button = msg.button ?? 'left';
        await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
        await cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button, clickCount: 1 });
        await cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button, clickCount: 1 });
        return;
      }
      case 'wheel': {
        const { x, y } = point(msg.x, msg.y);
        await cdp.send('Input.dispatchMouseEvent', { type: 'mouseWheel', x, y, deltaX: msg.deltaX, deltaY: msg.deltaY });
        return;
      }
      case 'key': {
        const special = SPECIAL_KEYS[msg.key];
        if (special) {
          await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', key: msg.key, windowsVirtualKeyCode: special.code, text: special.text });
          await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key: msg.key, windowsVirtualKeyCode: special.code });
        } else if ([...msg.key].length === 1) {
          await cdp.send('Input.dispatchKeyEvent', { type: 'keyDown', key: msg.key, text: msg.key });
          await cdp.send('Input.dispatchKeyEvent', { type: 'keyUp', key: msg.key });
        }
        return;
      }
      case 'text':
        await cdp.send('Input.insertText', { text: String(msg.text) });
        return;
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    for (const v of this.viewers) v.ws.close(1001, 'session destroyed');
    this.viewers.clear();
    this.follow();
    await this.switching;
  }
}
