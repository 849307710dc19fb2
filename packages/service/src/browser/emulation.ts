// Browser context settings for `mobile` (viewport + user agent) and `location` (locale from
// the languages, time zone from the country).
import type { BrowserContextOptions } from 'playwright-core';
import { MOBILE_USER_AGENT } from '../scrape/engine.js';

export const DESKTOP_VIEWPORT = { width: 1280, height: 800 };
export const MOBILE_VIEWPORT = { width: 390, height: 844 };
/** The HTTP engine's mobile user agent, so both engines present the same device. */
export { MOBILE_USER_AGENT };

/** The main time zone of each country we know; others keep the machine's zone. */
const COUNTRY_TIMEZONES: Record<string, string> = {
  US: 'America/New_York', CA: 'America/Toronto', MX: 'America/Mexico_City', BR: 'America/Sao_Paulo',
  AR: 'America/Argentina/Buenos_Aires', CL: 'America/Santiago', CO: 'America/Bogota', PE: 'America/Lima',
  GB: 'Europe/London', IE: 'Europe/Dublin', FR: 'Europe/Paris', DE: 'Europe/Berlin', ES: 'Europe/Madrid',
  PT: 'Europe/Lisbon', IT: 'Europe/Rome', NL: 'Europe/Amsterdam', BE: 'Europe/Brussels', CH: 'Europe/Zurich',
  AT: 'Europe/Vienna', SE: 'Europe/Stockholm', NO: 'Europe/Oslo', DK: 'Europe/Copenhagen', FI: 'Europe/Helsinki',
  PL: 'Europe/Warsaw', CZ: 'Europe/Prague', HU: 'Europe/Budapest', RO: 'Europe/Bucharest', GR: 'Europe/Athens',
  TR: 'Europe/Istanbul', UA: 'Europe/Kyiv', RU: 'Europe/Moscow', IL: 'Asia/Jerusalem', AE: 'Asia/Dubai',
  SA: 'Asia/Riyadh', EG: 'Africa/Cairo', ZA: 'Africa/Johannesburg', NG: 'Africa/Lagos', KE: 'Africa/Nairobi',
  IN: 'Asia/Kolkata', PK: 'Asia/Karachi', BD: 'Asia/Dhaka', TH: 'Asia/Bangkok', VN: 'Asia/Ho_Chi_Minh',
  ID: 'Asia/Jakarta', MY: 'Asia/Kuala_Lumpur', SG: 'Asia/Singapore', PH: 'Asia/Manila', CN: 'Asia/Shanghai',
  HK: 'Asia/Hong_Kong', TW: 'Asia/Taipei', KR: 'Asia/Seoul', JP: 'Asia/Tokyo', AU: 'Australia/Sydney',
  NZ: 'Pacific/Auckland',
};

/** A default language for a country when no languages are given. */
const COUNTRY_LOCALES: Record<string, string> = {
  US: 'en-US', GB: 'en-GB', CA: 'en-CA', AU: 'en-AU', IE: 'en-IE', NZ: 'en-NZ', IN: 'en-IN', FR: 'fr-FR',
  DE: 'de-DE', AT: 'de-AT', CH: 'de-CH', ES: 'es-ES', MX: 'es-MX', AR: 'es-AR', IT: 'it-IT', PT: 'pt-PT',
  BR: 'pt-BR', NL: 'nl-NL', BE: 'nl-BE', SE: 'sv-SE', NO: 'nb-NO', DK: 'da-DK', FI: 'fi-FI', PL: 'pl-PL',
  CZ: 'cs-CZ', JP: 'ja-JP', KR: 'ko-KR', CN: 'zh-CN', TW: 'zh-TW', HK: 'zh-HK', RU: 'ru-RU', TR: 'tr-TR',
};

export interface EmulationOptions {
  mobile?: boolean;
  location?: { country?: string; languages?: string[] };
  headers?: Record<string, string>;
  skipTlsVerification?: boolean;
}

export function contextOptionsFor(o: EmulationOptions): BrowserContextOptions {
  const country = o.location?.country?.toUpperCase();
  const languages = o.location?.languages?.filter(Boolean) ?? [];
  const locale = languages[0] ?? (country ? COUNTRY_LOCALES[country] : undefined);
  const timezoneId = country ? COUNTRY_TIMEZONES[country] : undefined;
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  if (languages.length && !Object.keys(headers).some((k) => k.toLowerCase() === 'accept-language')) {
    headers['Accept-Language'] = languages.map((l, i) => (i === 0 ? l : `${l};q=${Math.max(0.1, 1 - i / 10).toFixed(1)}`)).join(',');
  }
  return {
    viewport: o.mobile ? MOBILE_VIEWPORT : DESKTOP_VIEWPORT,
    ...(o.mobile ? { userAgent: MOBILE_USER_AGENT, isMobile: true, hasTouch: true, deviceScaleFactor: 1 } : {}),
    ...(locale ? { locale } : {}),
    ...(timezoneId ? { timezoneId } : {}),
    extraHTTPHeaders: headers,
    ignoreHTTPSErrors: o.skipTlsVerification !== false,
    serviceWorkers: 'block',
  };
}
