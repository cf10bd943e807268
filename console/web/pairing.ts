// A console opened with a pairing link (#pair=cdev_p_…, what `cdevd serve`
// prints) is a paired device: it exchanges the link's one-time token for
// a pair as the iOS app does, keeps its refresh token in sessionStorage and
// renews its short-lived access token (kept under tokenKey) before it
// expires.

export const tokenKey = "cdevd.token";
const refreshKey = "cdevd.refresh";

// The answer of /api/auth/exchange and /api/auth/refresh.
interface DevicePair {
  access_token: string;
  access_token_expires_at: string;
  refresh_token: string;
}

let refreshTimer: ReturnType<typeof setTimeout> | undefined;

function keepPair(p: DevicePair): string {
  sessionStorage.setItem(tokenKey, p.access_token);
  sessionStorage.setItem(refreshKey, p.refresh_token);
  // Two minutes before it expires, as the iOS app does; an open socket
  // stays open regardless, the new token is for the next connection.
  clearTimeout(refreshTimer);
  const ms = Math.max(5000, Date.parse(p.access_token_expires_at) - Date.now() - 120_000);
  refreshTimer = setTimeout(() => void renew(), ms);
  return p.access_token;
}

async function postPair(path: string, body: object): Promise<string | null> {
  try {
    const r = await fetch(path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
    });
    // 200 only: a 202 (a pairing waiting for the host's approval) has no
    // tokens yet, and the link serve prints is approved already.
    return r.status === 200 ? keepPair((await r.json()) as DevicePair) : null;
  } catch {
    return null;
  }
}

// paired tells whether this console holds a refresh token.
export function paired(): boolean {
  return sessionStorage.getItem(refreshKey) !== null;
}

// renew trades the kept refresh token for a new pair; null when there is
// none or it was refused (the console must then be paired again).
export async function renew(): Promise<string | null> {
  const rt = sessionStorage.getItem(refreshKey);
  if (!rt) return null;
  const t = await postPair("/api/auth/refresh", { refresh_token: rt });
  if (!t) sessionStorage.removeItem(refreshKey);
  return t;
}

// takePairing exchanges the pairing token of a #pair= link once:
// undefined without one, null when it was refused (used or expired).
export async function takePairing(): Promise<string | null | undefined> {
  const frag = new URLSearchParams(location.hash.slice(1));
  const p = frag.get("pair");
  if (!p) return undefined;
  history.replaceState(null, "", location.pathname + location.search);
  return postPair("/api/auth/exchange", { pairing_token: p });
}
