// Which links a crawl never visits. The URL keys (parseHttpUrl, dedupeKey, crawlKey) are the
// contract's (`url-keys.ts`), shared with the client side's comparison key.

/** Extensions of files a crawl never visits (images, styles, scripts, fonts, media, archives). */
const FILE_EXTENSIONS = ['.png', '.jpg', '.jpeg', '.gif', '.css', '.js', '.ico', '.svg', '.tiff', '.zip', '.exe', '.dmg', '.mp4', '.mp3', '.wav', '.pptx', '.xlsx', '.avi', '.flv', '.woff', '.ttf', '.woff2', '.webp', '.inc'];

/** Whether a link points at a non-page file by its extension (PDF and DOCX are pages: they are converted). */
export function isFileUrl(url: URL): boolean {
  const path = url.pathname.toLowerCase();
  return FILE_EXTENSIONS.some((ext) => path.endsWith(ext));
}
