/**
 * Where the dashboard keeps the operator token: this tab's sessionStorage
 * (gone when the tab closes). A link may carry it in the fragment,
 * `/dashboard#token=...`: fragments are never sent to a server, and the
 * dashboard removes it from the address bar at once.
 */
const KEY = 'pels-operator-token';

export function takeTokenFromFragment(hash: string): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get('token');
  return token ? token : null;
}

export function loadToken(): string | null {
  const fromFragment = takeTokenFromFragment(location.hash);
  if (fromFragment) {
    history.replaceState(history.state, '', `${location.pathname}${location.search}`);
    saveToken(fromFragment);
    return fromFragment;
  }
  return sessionStorage.getItem(KEY);
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
