/**
 * Which web pages may open a WebSocket to this server. Browsers send the
 * page's `Origin` with every WebSocket upgrade and let any page open one to
 * any host, so without this check a page elsewhere could take viewer places
 * or try operator tokens from its visitors' browsers. Programs that are not
 * browsers (the synthetic receivers, monitoring) send no Origin and pass.
 */
import type { IncomingMessage } from 'node:http';
import { refuseUpgrade, type UpgradeHandler } from './httpServer';

export class AllowedOrigins {
  private readonly origins: ReadonlySet<string>;

  /**
   * `origins`: e.g. ["https://tv.example.org"]; the server's own origin (the request's Host) is always allowed.
   * `cluster`: the live nodes' origins (`URL.origin`) of a cluster, whose pages place their players here.
   */
  constructor(
    origins: readonly string[],
    private readonly cluster: () => readonly string[] = () => [],
  ) {
    this.origins = new Set(origins.map(normalOrigin));
  }

  /** These origins, and those of a cluster's live nodes as `nodes` gives them at each upgrade. */
  withCluster(nodes: () => readonly string[]): AllowedOrigins {
    return new AllowedOrigins([...this.origins], nodes);
  }

  /** Wraps an upgrade handler: a foreign origin gets 403 before any WebSocket is made. */
  guard(handler: UpgradeHandler, onRefused: () => void = () => {}): UpgradeHandler {
    return (req, socket, head) => {
      if (this.allows(req)) return handler(req, socket, head);
      onRefused();
      refuseUpgrade(socket, 403, { error: { code: 'unauthorized', message: `origin ${JSON.stringify(req.headers.origin)} may not open this server's WebSockets (ALLOWED_ORIGINS)` } });
    };
  }

  /** Whether an upgrade request may go on. */
  allows(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false; // "null" (a sandboxed frame, a file) and garbage
    }
    if (this.origins.has(url.origin) || this.cluster().includes(url.origin)) return true;
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host === hostOf(req.headers.host);
  }
}

/** ALLOWED_ORIGINS: origins separated by commas (scheme://host[:port]); throws naming a bad one. */
export function parseAllowedOrigins(text: string | undefined): AllowedOrigins {
  return new AllowedOrigins((text ?? '').split(',').map((s) => s.trim()).filter(Boolean));
}

function normalOrigin(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // Reported below.
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new Error(`"${text}" is not an origin: expected scheme://host[:port] with http or https and no path, e.g. https://tv.example.org`);
  }
  return url.origin;
}

/** The Host header as URL.host writes it (lower case, no default port); undefined when missing or malformed. */
function hostOf(header: string | undefined): string | undefined {
  if (!header) return undefined;
  try {
    return new URL(`http://${header}`).host;
  } catch {
    return undefined;
  }
}
