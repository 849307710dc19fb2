// Character references as the native pass (native-pass.ts, native-prescan.ts) must read them:
// the prescan decodes attribute values and titles itself, and hands mdream the body's text with
// its references as written, where the tree path hands it htmlparser2's decoded characters. Both
// hold only for references every reader decodes alike; any other declines the page.

/** Entities decoded the same in text and attributes, by any reader; any other '&' declines. */
const NAMED: ReadonlyMap<string, string> = new Map([['amp', '&'], ['lt', '<'], ['gt', '>'], ['quot', '"'], ['apos', "'"]]);
const ENTITY = /&(?:([a-z]+)|#(\d{1,5})|#[xX]([0-9a-fA-F]{1,4}));/g;

/** The text with the plain entities decoded, or null when it holds another '&'. */
export function decode(text: string): string | null {
  if (!text.includes('&')) return text;
  let bad = false;
  const out = text.replace(ENTITY, (whole, name?: string, dec?: string, hex?: string) => {
    const code = name !== undefined ? -1 : dec !== undefined ? Number(dec) : parseInt(hex!, 16);
    const value = name !== undefined ? NAMED.get(name) : code >= 0x20 && code < 0x7f ? String.fromCharCode(code) : undefined;
    if (value === undefined) bad = true;
    return value ?? whole;
  });
  return bad || text.replace(ENTITY, '').includes('&') ? null : out;
}

/**
 * Named references mdream's native engine decodes in text as htmlparser2 does: HTML 4's, checked
 * one by one (not the HTML5 additions, nor zwnj, zwj, lrm, rlm, ensp, emsp, thinsp). The tree path
 * hands mdream the decoded characters, the native pass the references as written.
 */
const MDREAM_NAMED = new Set(`amp lt gt quot apos nbsp copy reg trade hellip mdash ndash lsquo rsquo ldquo rdquo sbquo bdquo
  laquo raquo lsaquo rsaquo bull middot times divide deg plusmn para sect euro pound yen cent curren frac12 frac14 frac34 sup1
  sup2 sup3 micro iexcl iquest eacute egrave ecirc euml aacute agrave acirc auml atilde aring aelig ccedil iacute igrave icirc
  iuml ntilde oacute ograve ocirc ouml otilde oslash uacute ugrave ucirc uuml yacute yuml szlig Eacute Auml Ouml Uuml Ntilde
  Ccedil larr rarr uarr darr harr rArr lArr hArr dagger Dagger permil prime Prime oline frasl infin ne le ge asymp equiv minus
  lowast radic sum prod part nabla isin notin ni cap cup int there4 sim cong sub sup sube supe oplus otimes perp sdot alpha
  beta gamma delta epsilon pi sigma omega Omega lambda mu theta phi shy spades clubs hearts diams loz tilde circ`.split(/\s+/));
/** Without the ';': the legacy references both decode alike (checked). */
const MDREAM_LEGACY = new Set(['amp', 'lt', 'gt', 'quot', 'nbsp', 'copy', 'not']);
const REFERENCE = /&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([A-Za-z][A-Za-z0-9]*))(;?)/y;

/**
 * Whether every character reference in the content reads the same to mdream as to htmlparser2:
 * the names above, and numbers past the space (mdream keeps a tab, newline or return written so
 * where htmlparser2 makes it whitespace).
 */
export function referencesAgree(content: string): boolean {
  for (let amp = content.indexOf('&'); amp >= 0; amp = content.indexOf('&', amp + 1)) {
    // The references text holds most, read without a match (each holds one '&', so the next is after it).
    if (content.startsWith('&amp;', amp) || content.startsWith('&lt;', amp) || content.startsWith('&gt;', amp) || content.startsWith('&quot;', amp)) continue;
    REFERENCE.lastIndex = amp;
    const m = REFERENCE.exec(content);
    if (!m) continue;
    const name = m[3];
    if (name !== undefined) {
      if (!(m[4] ? MDREAM_NAMED : MDREAM_LEGACY).has(name)) return false;
    } else {
      // Beyond Unicode's last code point the engines' replacements were not compared.
      const code = Number(m[1] ?? `0x${m[2]}`);
      if (code <= 0x20 || code > 0x10ffff) return false;
    }
  }
  return true;
}
