// The session object of reference 2.1, as the browser endpoints return it.
import type { SessionUrls } from './session-manager.js';
import type { BrowserSession } from './session.js';

export interface SessionView extends SessionUrls {
  id: string;
  status: 'active' | 'destroyed';
  streamWebView: boolean;
  createdAt: string;
  lastActivity: string;
}

export function sessionView(s: BrowserSession, urls: SessionUrls): SessionView {
  return {
    id: s.id,
    status: s.status,
    ...urls,
    streamWebView: s.streamWebView,
    createdAt: new Date(s.createdAt).toISOString(),
    lastActivity: new Date(s.lastActivity).toISOString(),
  };
}
