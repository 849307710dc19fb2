// The host of a URL for summaries, ids and the WebdataTargetHost attribute. Pure (no URL parser:
// it also runs in the workflow sandbox and on inputs that failed validation).
export function hostOf(url: string): string {
  const m = /^[a-z]+:\/\/([^/?#]+)/i.exec(url);
  return m ? m[1].toLowerCase() : url;
}
