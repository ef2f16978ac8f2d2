import type Docker from 'dockerode';

/** What {@link runInImage} saw. */
export interface RunInImageResult {
  exitCode: number;
  /** stdout and stderr together (the container has a TTY), `\r\n` normalised. */
  output: string;
}

/** Runs `bash -c script` in a new container of `image`, then removes the container. */
export async function runInImage(
  docker: Docker,
  image: string,
  script: string,
): Promise<RunInImageResult> {
  const container = await docker.createContainer({
    Image: image,
    Entrypoint: ['bash', '-c', script],
    Cmd: [],
    Tty: true,
    Labels: { 'agent-workspace.test': 'image' },
  });
  try {
    await container.start();
    const { StatusCode } = (await container.wait()) as { StatusCode: number };
    const logs = await container.logs({ stdout: true, stderr: true, follow: false });
    return { exitCode: StatusCode, output: logs.toString('utf8').replace(/\r\n/g, '\n') };
  } finally {
    await container.remove({ force: true });
  }
}
