// App-open: try the app link; if the page is still visible after about 1.5 s the
// app is not installed, so go to the iOS store link or the Android download link.
export const APP_OPEN_MS = 1500;

export function storeLink({ itunesLink, androidLink }, ua) {
  return /iPhone|iPad|iPod/i.test(ua) ? itunesLink || androidLink : androidLink || itunesLink;
}

export function openApp(options, env = { location: window.location, document, ua: navigator.userAgent, setTimeout: window.setTimeout.bind(window) }) {
  const fallback = storeLink(options, env.ua);
  env.location.href = options.appLink;
  env.setTimeout(() => {
    if (env.document.visibilityState !== "hidden" && fallback) env.location.href = fallback;
  }, APP_OPEN_MS);
}
