// The session object of reference 2.1 (webdata-contract BrowserSession), as the browser endpoints return it.
import type { BrowserSession as SessionBody } from 'webdata-contract';
import type { SessionUrls } from './session-manager.js';
import type { BrowserSession } from './session.js';

export function sessionView(s: BrowserSession, urls: SessionUrls): SessionBody {
  return {
    id: s.id,
    status: s.status,
    ...urls,
    streamWebView: s.streamWebView,
    createdAt: new Date(s.createdAt).toISOString(),
    lastActivity: new Date(s.lastActivity).toISOString(),
  };
}
