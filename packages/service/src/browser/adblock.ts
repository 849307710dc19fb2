// Ad and tracker request blocking for `blockAds`. A bundled host list, because the maintained
// engines on npm (e.g. @ghostery/adblocker-playwright) ship no filter lists: they download
// them at run time (from raw.githubusercontent.com), which this offline service cannot do.
// A request is blocked when its host is a listed host or a subdomain of one.
const AD_HOSTS = new Set([
  'doubleclick.net', 'googlesyndication.com', 'googleadservices.com', 'google-analytics.com',
  'googletagmanager.com', 'googletagservices.com', 'adservice.google.com', 'pagead2.googlesyndication.com',
  'adnxs.com', 'adsrvr.org', 'advertising.com', 'adform.net', 'amazon-adsystem.com', 'criteo.com',
  'criteo.net', 'casalemedia.com', 'pubmatic.com', 'rubiconproject.com', 'openx.net', 'taboola.com',
  'outbrain.com', 'scorecardresearch.com', 'quantserve.com', 'moatads.com', 'serving-sys.com',
  'smartadserver.com', 'yieldmo.com', 'sharethrough.com', 'indexww.com', 'bidswitch.net',
  'media.net', 'zedo.com', 'adroll.com', 'hotjar.com', 'mixpanel.com', 'segment.io', 'segment.com',
  'facebook.net', 'connect.facebook.net', 'ads-twitter.com', 'static.ads-twitter.com', 'analytics.twitter.com',
  'ads.linkedin.com', 'px.ads.linkedin.com', 'bat.bing.com', 'clarity.ms', 'yandex.ru/metrika',
  'mc.yandex.ru', 'adsafeprotected.com', 'doubleverify.com', 'teads.tv', 'spotxchange.com',
  'contextweb.com', '33across.com', 'lijit.com', 'gumgum.com', 'revcontent.com', 'mgid.com',
  'popads.net', 'propellerads.com', 'exoclick.com', 'trafficjunky.net', 'adcolony.com',
  'chartbeat.com', 'newrelic.com', 'nr-data.net', 'fullstory.com', 'mouseflow.com', 'crazyegg.com',
  'optimizely.com', 'branch.io', 'app-measurement.com', 'adition.com', 'everesttech.net',
  'demdex.net', 'omtrdc.net', '2o7.net', 'krxd.net', 'bluekai.com', 'exelator.com', 'rlcdn.com',
  'tapad.com', 'agkn.com', 'mathtag.com', 'turn.com', 'adsymptotic.com', 'eyeota.net',
  'ads.pubmatic.com', 'securepubads.g.doubleclick.net', 'tpc.googlesyndication.com',
]);

export function isAdHost(hostname: string): boolean {
  let h = hostname.toLowerCase().replace(/\.$/, '');
  while (h.includes('.')) {
    if (AD_HOSTS.has(h)) return true;
    h = h.slice(h.indexOf('.') + 1);
  }
  return false;
}

export const AD_HOST_COUNT = AD_HOSTS.size;
