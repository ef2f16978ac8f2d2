import type {
  BackendCallOptions,
  BackendSession,
  RuntimeBackend,
  SessionSpec,
} from '../../backend/runtime-backend.js';
import { RecordingTcpProxy } from './recording-tcp-proxy.js';

/** Options of {@link ProxiedBackend}. */
export interface ProxiedBackendOptions {
  /**
   * Move every resumed session to a new proxy and close its old one, as a sandbox rescheduled
   * elsewhere would: its old URL stops answering. Default false.
   */
  relocateOnResume?: boolean;
}

/**
 * A {@link RuntimeBackend} that delegates to a real one but puts a {@link RecordingTcpProxy} in
 * front of every session's agent-server: each `url` it answers is rewritten to the proxy's, so
 * every byte between the clients (and the Runtime API server's probes) and the agent-servers
 * crosses a recorded hop. One proxy per agent-server address, made on first sight (and again
 * on each resume with `relocateOnResume`).
 */
export class ProxiedBackend implements RuntimeBackend {
  readonly kind: string;
  readonly namespace: string;
  readonly sandboxes: boolean;
  readonly #inner: RuntimeBackend;
  readonly #relocateOnResume: boolean;
  /** The current proxy of each agent-server address. */
  readonly #proxies = new Map<string, Promise<RecordingTcpProxy>>();
  /** Every proxy made, current or not. */
  readonly #all: Promise<RecordingTcpProxy>[] = [];

  constructor(inner: RuntimeBackend, { relocateOnResume = false }: ProxiedBackendOptions = {}) {
    this.#inner = inner;
    this.#relocateOnResume = relocateOnResume;
    this.kind = inner.kind;
    this.namespace = inner.namespace;
    this.sandboxes = inner.sandboxes;
  }

  /** Every byte sent towards any agent-server through the proxies. */
  async sent(): Promise<Buffer> {
    return Buffer.concat((await Promise.all(this.#all)).map((proxy) => proxy.sent()));
  }

  /** Every byte any agent-server answered through the proxies. */
  async received(): Promise<Buffer> {
    return Buffer.concat((await Promise.all(this.#all)).map((proxy) => proxy.received()));
  }

  /** How many proxies were made. */
  get proxies(): number {
    return this.#all.length;
  }

  /** Closes every proxy. */
  async close(): Promise<void> {
    await Promise.all((await Promise.all(this.#all)).map((proxy) => proxy.close()));
  }

  async start(spec: SessionSpec, options?: BackendCallOptions): Promise<BackendSession> {
    return this.#rewrite(await this.#inner.start(spec, options));
  }

  async get(sessionId: string, options?: BackendCallOptions) {
    return this.#maybe(await this.#inner.get(sessionId, options));
  }

  async getByRuntimeId(runtimeId: string, options?: BackendCallOptions) {
    return this.#maybe(await this.#inner.getByRuntimeId(runtimeId, options));
  }

  async list(options?: BackendCallOptions): Promise<BackendSession[]> {
    return Promise.all((await this.#inner.list(options)).map((session) => this.#rewrite(session)));
  }

  async pause(runtimeId: string, options?: BackendCallOptions): Promise<BackendSession> {
    return this.#rewrite(await this.#inner.pause(runtimeId, options));
  }

  async resume(runtimeId: string, options?: BackendCallOptions): Promise<BackendSession> {
    const session = await this.#inner.resume(runtimeId, options);
    if (this.#relocateOnResume && session.url) {
      const { host } = new URL(session.url);
      const moved = this.#proxies.get(host);
      this.#proxies.delete(host);
      await (await moved)?.close();
    }
    return this.#rewrite(session);
  }

  stop(runtimeId: string, options?: BackendCallOptions): Promise<boolean> {
    return this.#inner.stop(runtimeId, options);
  }

  logs(runtimeId: string, options: BackendCallOptions & { tailLines: number }): Promise<string> {
    return this.#inner.logs(runtimeId, options);
  }

  async #maybe(session: BackendSession | undefined): Promise<BackendSession | undefined> {
    return session && this.#rewrite(session);
  }

  async #rewrite(session: BackendSession): Promise<BackendSession> {
    if (!session.url) return session;
    const target = new URL(session.url);
    let proxy = this.#proxies.get(target.host);
    if (!proxy) {
      proxy = RecordingTcpProxy.start(target.hostname.replace(/^\[|\]$/g, ''), Number(target.port));
      this.#proxies.set(target.host, proxy);
      this.#all.push(proxy);
    }
    return { ...session, url: (await proxy).url };
  }
}
