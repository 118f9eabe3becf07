/** The operator HTTP API from the dashboard: bearer token, JSON, the server's error message on failure. */
import type { RateControllerName } from '@pels/shared/rate/names';
import type { ControlSettingsInfo, ControlUpdate, AddStreamRequest, OperatorStream, StreamKeyAnswer } from '@pels/shared/protocol/operator';
import type { FlowModeName } from '@pels/shared/protocol/api';

export class OperatorApiError extends Error {
  override name = 'OperatorApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class OperatorApi {
  constructor(private readonly token: string) {}

  addStream(req: AddStreamRequest): Promise<unknown> {
    return this.call('POST', '/api/streams', req);
  }

  /** A live stream: the answer holds its key, shown once. */
  addLiveStream(req: { id?: string; name?: string; takeover: boolean }): Promise<{ stream: OperatorStream } & StreamKeyAnswer> {
    return this.call('POST', '/api/streams', { ...req, source: 'live:' }) as Promise<{ stream: OperatorStream } & StreamKeyAnswer>;
  }

  rotateKey(id: string): Promise<StreamKeyAnswer> {
    return this.call('POST', `/api/streams/${encodeURIComponent(id)}/key`) as Promise<StreamKeyAnswer>;
  }

  revokeKey(id: string): Promise<unknown> {
    return this.call('DELETE', `/api/streams/${encodeURIComponent(id)}/key`);
  }

  setTakeover(id: string, allow: boolean): Promise<unknown> {
    return this.call('PUT', `/api/streams/${encodeURIComponent(id)}/takeover`, { allow });
  }

  removeStream(id: string): Promise<unknown> {
    return this.call('DELETE', `/api/streams/${encodeURIComponent(id)}`);
  }

  disconnectViewer(id: string): Promise<unknown> {
    return this.call('DELETE', `/api/viewers/${encodeURIComponent(id)}`);
  }

  setViewerMode(id: string, mode: FlowModeName): Promise<unknown> {
    return this.call('POST', `/api/viewers/${encodeURIComponent(id)}/mode`, { mode });
  }

  setViewerController(id: string, controller: RateControllerName): Promise<unknown> {
    return this.call('POST', `/api/viewers/${encodeURIComponent(id)}/controller`, { controller });
  }

  setStreamController(id: string, controller: RateControllerName): Promise<unknown> {
    return this.call('POST', `/api/streams/${encodeURIComponent(id)}/controller`, { controller });
  }

  setControl(update: ControlUpdate): Promise<ControlSettingsInfo> {
    return this.call('PUT', '/api/control', update) as Promise<ControlSettingsInfo>;
  }

  private async call(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await fetch(path, {
      method,
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: unknown = await res.json().catch(() => null);
    if (res.ok) return json;
    const message = (json as { error?: { message?: unknown } } | null)?.error?.message;
    throw new OperatorApiError(res.status, typeof message === 'string' ? message : `${method} ${path} failed with HTTP ${res.status}`);
  }
}
