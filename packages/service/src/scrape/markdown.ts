// HTML fragment → markdown with turndown and the GFM plugin (tables, strikethrough, task lists).
import TurndownService from 'turndown';
import { gfm } from 'turndown-plugin-gfm';
import { BASE64_IMAGE_PLACEHOLDER } from './text.js';

let service: TurndownService | undefined;

function createService(): TurndownService {
  const td = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
    strongDelimiter: '**',
  });
  td.use(gfm);
  // Left-over form controls carry no readable content.
  td.remove(['button', 'input', 'select', 'textarea']);
  // "- item" rather than turndown's "-   item".
  td.addRule('compactListItem', {
    filter: 'li',
    replacement(content, node, options) {
      const parent = node.parentNode as HTMLElement | null;
      let prefix = `${options.bulletListMarker ?? '-'} `;
      if (parent?.nodeName === 'OL') {
        const start = parent.getAttribute('start');
        const index = Array.prototype.indexOf.call(parent.children, node);
        prefix = `${start ? Number(start) + index : index + 1}. `;
      }
      const isParagraph = /\n$/.test(content);
      const body = content.replace(/^\n+/, '').replace(/\n+$/, '') + (isParagraph ? '\n' : '');
      return prefix + body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`) + (node.nextSibling ? '\n' : '');
    },
  });
  // The placeholder is written unescaped, as the hosted service writes it.
  td.addRule('base64Placeholder', {
    filter: (node) => node.nodeName === 'IMG' && node.getAttribute('src') === BASE64_IMAGE_PLACEHOLDER,
    replacement: (_content, node) => `![${td.escape(node.getAttribute('alt') ?? '')}](${BASE64_IMAGE_PLACEHOLDER})`,
  });
  return td;
}

export function htmlToMarkdown(html: string): string {
  if (!html.trim()) return '';
  service ??= createService();
  return service.turndown(html).replace(/\n{3,}/g, '\n\n').trim();
}
