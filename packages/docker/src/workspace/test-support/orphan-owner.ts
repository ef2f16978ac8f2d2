/**
 * A process that owns one DockerWorkspace and never closes it, for the reaping test:
 * `node --import tsx orphan-owner.ts <image> <labels JSON> <keepAlive>`. Prints
 * `{"containerId":…}` once the workspace is ready, then idles until killed.
 */
import { DockerWorkspace } from '../docker-workspace.js';

const [image, labels, keepAlive] = process.argv.slice(2);
const workspace = await DockerWorkspace.create({
  image: image!,
  labels: JSON.parse(labels!) as Record<string, string>,
  keepAlive: keepAlive === 'true',
  reapOrphans: false,
});
process.stdout.write(`${JSON.stringify({ containerId: workspace.containerId })}\n`);
setInterval(() => {}, 60_000);
