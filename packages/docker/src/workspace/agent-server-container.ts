import { abortedError, type SandboxEndpoint, WorkspaceError } from '@agent-workspace/core';
import type Docker from 'dockerode';
import { readBridgePorts } from './bridge-ports.js';
import { AGENT_SERVER_PORT, buildContainerSpec } from './build-container-spec.js';
import { type ContainerConnection, chooseConnection, forgetBridge } from './choose-connection.js';
import { throwIfDiskLimitRefused } from './disk-limit-refusal.js';
import { dockerError } from './docker-error.js';
import { managedLabels } from './docker-labels.js';
import type { ResolvedDockerWorkspaceOptions } from './docker-workspace-options.js';
import { resolveSnapshotImage } from './find-docker-snapshot.js';
import { probeTcp } from './probe-tcp.js';
import { type PublishedPort, readPublishedPorts } from './published-port.js';
import { reapOrphans } from './reap-orphans.js';
import { removeContainer } from './remove-container.js';
import { watchListeningLine } from './watch-listening-line.js';

/** Longest `connect: 'auto'` waits for the container's address to accept a connection. */
const BRIDGE_PROBE_TIMEOUT_MS = 1000;

/** Options of {@link AgentServerContainer}. */
export interface AgentServerContainerOptions {
  /** The engine the container runs on. */
  docker: Docker;
  /** The workspace's resolved options. */
  options: ResolvedDockerWorkspaceOptions;
  /** The image as configured: `image`, or the `fromSnapshot` reference or id. */
  image: string;
  /** The workspace's id, labelled on the container. */
  workspaceId: string;
  /** The agent-server's session key, the workspace's own: the one its clients use. */
  apiKey: string;
  /** One more key the agent-server accepts (`sessionApiKey`), for the caller's other clients. */
  acceptedApiKey?: string | undefined;
  /** The container's name. */
  containerName: string;
}

/**
 * The container of a `DockerWorkspace` and how its agent-server is reached: creates it (bridge
 * or published ports, see `DockerWorkspaceOptions.connect`), starts it, reads where its ports
 * are, and falls back from the bridge to published ports when `'auto'`'s address does not answer.
 */
export class AgentServerContainer {
  /** The container, once created. */
  container: Docker.Container | undefined;
  /** Where each container port is reachable, once started. */
  ports = new Map<number, PublishedPort>();
  /** How the container is reached, chosen before it is created. */
  connection: ContainerConnection = 'published-port';
  readonly #docker: Docker;
  readonly #options: ResolvedDockerWorkspaceOptions;
  readonly #image: string;
  readonly #workspaceId: string;
  readonly #apiKey: string;
  readonly #acceptedApiKey: string | undefined;
  readonly #containerName: string;
  /** `connect: 'auto'` chose the bridge: check the address answers, else publish. */
  #verifyBridge = false;
  /** The image the container is created from (`fromSnapshot` resolved). */
  #runImage: string | undefined;
  /** Ends the watch of the container's output for the listening line, if one is open. */
  #stopWatch: (() => void) | undefined;

  constructor({
    docker,
    options,
    image,
    workspaceId,
    apiKey,
    acceptedApiKey,
    containerName,
  }: AgentServerContainerOptions) {
    this.#docker = docker;
    this.#options = options;
    this.#image = image;
    this.#workspaceId = workspaceId;
    this.#apiKey = apiKey;
    this.#acceptedApiKey = acceptedApiKey;
    this.#containerName = containerName;
  }

  /** Ends the watch of the container's output, if one is open. */
  stopWatch(): void {
    this.#stopWatch?.();
  }

  /**
   * Reaps orphans (with `reapOrphans`), resolves the image, chooses the connection and creates
   * the container.
   */
  async create(signal: AbortSignal): Promise<void> {
    const docker = this.#docker;
    const options = this.#options;
    const reaping = options.reapOrphans
      ? reapOrphans({ docker, signal }).catch(() => [])
      : Promise.resolve([]);
    try {
      const [image, chosen] = await Promise.all([
        options.fromSnapshot === undefined
          ? this.#image
          : resolveSnapshotImage(docker, options.fromSnapshot),
        chooseConnection({
          docker,
          connect: options.connect,
          network: options.network,
          publishAddress: options.publishAddress,
          sharedKey: options.deferInit,
        }),
      ]);
      this.#runImage = image;
      this.connection = chosen.connection;
      this.#verifyBridge = chosen.verify;
    } catch (error) {
      await reaping;
      throw error;
    }
    try {
      await this.#createContainer(signal);
    } finally {
      await reaping;
    }
  }

  /** Creates the container, publishing its ports unless it is reached on the bridge. */
  async #createContainer(signal: AbortSignal): Promise<void> {
    const docker = this.#docker;
    const options = this.#options;
    const body = buildContainerSpec({
      options: { ...options, image: this.#runImage! },
      labels: managedLabels({
        workspaceId: this.#workspaceId,
        keepAlive: options.keepAlive,
        labels: options.labels,
      }),
      apiKey: this.#apiKey,
      acceptedApiKey: this.#acceptedApiKey,
      environment: process.env,
      publishPorts: this.connection === 'published-port',
    });
    const query = {
      name: this.#containerName,
      ...(options.platform && { platform: options.platform }),
    };
    try {
      // `_query` / `_body` split the create options between the URL and the JSON body. Not
      // aborted mid-call: the engine would go on and make a container nobody knows of (a list
      // by label can run before it exists); a create takes milliseconds, the abort is checked
      // right after, and `close()` then removes what was made.
      this.container = await docker.createContainer({
        _query: query,
        _body: body,
      } as unknown as Docker.ContainerCreateOptions);
      if (signal.aborted) throw abortedError(signal);
    } catch (error) {
      if (WorkspaceError.isInstance(error, 'ABORTED')) throw error;
      if (options.resources?.diskBytes !== undefined) throwIfDiskLimitRefused(error);
      throw dockerError(error, {
        docker,
        action: `create a container from ${this.#image}`,
        image: this.#image,
      });
    }
  }

  /**
   * Starts the container and resolves where its agent-server is reached; when `'auto'`'s
   * bridge address does not answer, re-creates it with published ports (from now on).
   */
  async start(signal: AbortSignal): Promise<SandboxEndpoint> {
    const endpoint = await this.#startContainer(signal);
    if (!this.#verifyBridge) return endpoint!;
    this.#verifyBridge = false;
    if (endpoint && (await this.#answersOnBridge(endpoint, signal))) return endpoint;
    if (signal.aborted) throw abortedError(signal);
    // `'auto'` chose the bridge but the address does not answer: publish instead, from now on.
    forgetBridge(this.#docker, this.#options.network);
    this.#stopWatch?.();
    await removeContainer({
      docker: this.#docker,
      id: this.container!.id,
      stopTimeoutSeconds: 0,
      signal,
    });
    this.container = undefined;
    this.connection = 'published-port';
    await this.#createContainer(signal);
    return (await this.#startContainer(signal))!;
  }

  /**
   * True when the server's listening line was seen and its address then accepts a connection;
   * also true when the line never comes (a quiet log level, an exited container): the start's
   * own polling then decides.
   */
  async #answersOnBridge(endpoint: SandboxEndpoint, signal: AbortSignal): Promise<boolean> {
    try {
      await endpoint.ready;
    } catch {
      return true;
    }
    const server = this.ports.get(AGENT_SERVER_PORT)!;
    return probeTcp({
      host: server.host,
      port: server.port,
      timeoutMs: BRIDGE_PROBE_TIMEOUT_MS,
      signal,
    });
  }

  /**
   * Starts the container and reads where its server is reached; `undefined` when it has no
   * address on its network and `'auto'` may still fall back to publishing.
   */
  async #startContainer(signal: AbortSignal): Promise<SandboxEndpoint | undefined> {
    const docker = this.#docker;
    const container = this.container!;
    const bridge = this.connection === 'bridge';
    const network = this.#options.network ?? 'bridge';
    const reaching = bridge
      ? `reached at its address on network ${network}`
      : `publishing ports on ${this.#options.publishAddress}`;
    try {
      await container.start({ abortSignal: signal });
    } catch (error) {
      throw dockerError(error, {
        docker,
        action: `start container ${this.#containerName} (${reaching})`,
      });
    }
    // Opened now (it replays the output from the start): readiness is the server's own word.
    const listening = watchListeningLine({ container, signal });
    this.#stopWatch = listening.stop;
    let info: Docker.ContainerInspectInfo;
    try {
      info = await container.inspect({ abortSignal: signal });
    } catch (error) {
      throw dockerError(error, { docker, action: `inspect container ${this.#containerName}` });
    }
    // Exited already: the template reports it with the logs.
    if (!info.State.Running)
      throw new Error(`container ${this.#containerName} is ${info.State.Status}`);
    this.ports = bridge
      ? readBridgePorts({
          info,
          network: this.#options.network,
          ports: [AGENT_SERVER_PORT, ...(this.#options.extraPorts ?? [])],
        })
      : readPublishedPorts({ docker, info, publishAddress: this.#options.publishAddress });
    const server = this.ports.get(AGENT_SERVER_PORT);
    if (!server) {
      if (bridge && this.#verifyBridge) {
        listening.stop();
        return undefined;
      }
      throw new WorkspaceError({
        code: 'PROVISIONING_ERROR',
        message: bridge
          ? `container ${this.#containerName} has no address on network ${network} (connect: 'bridge'); use connect: 'published-port'`
          : `Docker did not publish port ${AGENT_SERVER_PORT}/tcp of container ${this.#containerName} (${reaching}, network ${network})`,
        details: bridge
          ? { networks: info.NetworkSettings.Networks }
          : { ports: info.NetworkSettings.Ports },
      });
    }
    return { host: server.url, apiKey: this.#apiKey, ready: listening.ready };
  }
}
