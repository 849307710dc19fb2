// onlyMainContent as the open-source server applies it (its native html-transformer,
// apps/api/sharedLibs/html-transformer/src/lib.rs at 0fac8fb): not a choice of a block but a
// removal list. Every element matching one of EXCLUDE_NON_MAIN_TAGS goes, unless it is or holds
// an element matching FORCE_INCLUDE_MAIN_TAGS (a `#main` inside a `.sidebar` keeps the sidebar).
// The list holds only tag, class and id selectors, so it is matched here on names and attributes
// in two walks rather than as 42 CSS queries. Whether an element holds a force-included one does
// not depend on the order the list is applied in, so the walks give the reference's result.
import type { ParentNode } from 'domhandler';
import { eachElement, removeNode } from './dom.js';

/** The reference's EXCLUDE_NON_MAIN_TAGS (42 selectors), by kind. */
const EXCLUDED_TAGS: ReadonlySet<string> = new Set(['header', 'footer', 'nav', 'aside']);
const EXCLUDED_CLASSES: ReadonlySet<string> = new Set([
  'header', 'top', 'navbar', 'footer', 'bottom', 'sidebar', 'side', 'aside', 'modal', 'popup', 'overlay', 'ad', 'ads',
  'advert', 'lang-selector', 'language', 'social', 'social-media', 'social-links', 'menu', 'navigation', 'breadcrumbs',
  'share', 'widget', 'cookie', 'fc-decoration',
]);
const EXCLUDED_IDS: ReadonlySet<string> = new Set([
  'header', 'footer', 'sidebar', 'modal', 'ad', 'language-selector', 'social', 'nav', 'breadcrumbs', 'share', 'widget', 'cookie',
]);
/** The reference's FORCE_INCLUDE_MAIN_TAGS: `#main`, and the classes one event vendor puts all its content under a `.widget` with. */
const FORCED_IDS: ReadonlySet<string> = new Set(['main']);
const FORCED_CLASSES: ReadonlySet<string> = new Set([
  'swoogo-cols', 'swoogo-text', 'swoogo-table-div', 'swoogo-space', 'swoogo-alert', 'swoogo-sponsors', 'swoogo-title',
  'swoogo-tabs', 'swoogo-logo', 'swoogo-image', 'swoogo-button', 'swoogo-agenda',
]);

interface Named {
  name: string;
  attribs: Record<string, string>;
}

/** Class tokens as CSS matches them: split on ASCII whitespace. */
function hasClassIn(classes: string | undefined, set: ReadonlySet<string>): boolean {
  if (!classes) return false;
  for (const c of classes.split(/[ \t\n\f\r]+/)) if (set.has(c)) return true;
  return false;
}

/** Whether the element matches one of the reference's non-main selectors. */
export function isNonMain(el: Named): boolean {
  const { id, class: classes } = el.attribs;
  return EXCLUDED_TAGS.has(el.name) || (id !== undefined && EXCLUDED_IDS.has(id)) || hasClassIn(classes, EXCLUDED_CLASSES);
}

/** Whether the element matches one of the reference's force-include selectors. */
export function isForceIncluded(el: Named): boolean {
  const { id, class: classes } = el.attribs;
  return (id !== undefined && FORCED_IDS.has(id)) || hasClassIn(classes, FORCED_CLASSES);
}

/**
 * Removes, in place, the non-main elements below `root` that are not and hold no force-included
 * element. Two iterative walks (pages are untrusted: nesting depth is theirs to choose): the
 * force-included elements mark their ancestors, then non-main elements not marked go.
 */
export function removeNonMain(root: ParentNode): void {
  const holdsForced = new Set<ParentNode>();
  eachElement(root, (el) => {
    if (!isForceIncluded(el)) return true;
    for (let p: ParentNode | null = el; p && p !== root && !holdsForced.has(p); p = p.parent) holdsForced.add(p);
    return true;
  });
  eachElement(root, (el) => {
    if (holdsForced.has(el) || !isNonMain(el)) return true;
    removeNode(el);
    return false;
  });
}

/** The removal list as CSS selectors (bench/native-pass-cost.ts times mdream's filter with it). */
export const NON_MAIN_SELECTORS: readonly string[] = [
  ...EXCLUDED_TAGS, ...[...EXCLUDED_CLASSES].map((c) => `.${c}`), ...[...EXCLUDED_IDS].map((id) => `#${id}`),
];
