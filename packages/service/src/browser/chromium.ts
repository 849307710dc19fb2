// Where Chromium lives and how it is always started. Only Debian's system Chromium (or
// CHROMIUM_PATH) is used: no tool may download a browser of its own.
import { accessSync, constants } from 'node:fs';
import { HttpError } from '../core/http-error.js';

/** Flags every Chromium we start carries (plus a fresh --user-data-dir where we launch it). */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The Chromium binary to use, or undefined when none is installed. */
export function findChromium(explicit?: string): string | undefined {
  const wanted = explicit ?? process.env.CHROMIUM_PATH;
  if (wanted) return executable(wanted) ? wanted : undefined;
  return CANDIDATES.find(executable);
}

export function browserNotConfigured(): HttpError {
  return new HttpError(503, 'browser not configured: no Chromium found (install Debian chromium or set CHROMIUM_PATH)', {
    code: 'BROWSER_NOT_CONFIGURED',
  });
}

/** The Chromium path, or a 503 when the browser feature is not configured. */
export function requireChromium(explicit?: string): string {
  const path = findChromium(explicit);
  if (!path) throw browserNotConfigured();
  return path;
}
