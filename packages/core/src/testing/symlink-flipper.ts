import { Worker } from 'node:worker_threads';

/** A thread that keeps swapping a symbolic link between targets, for race tests. */
export interface SymlinkFlipper {
  /** Stops the thread; resolves to the number of swaps it made. */
  stop(): Promise<number>;
}

const FLIPPER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { link, targets } = workerData;
let flips = 0;
let stopping = false;
let announced = false;
parentPort.on('message', () => { stopping = true; });
const temporary = link + '.flip';
function loop() {
  for (let n = 0; n < 500; n++) {
    try {
      fs.rmSync(temporary, { force: true });
      fs.symlinkSync(targets[flips % targets.length], temporary);
      fs.renameSync(temporary, link);
      flips++;
    } catch {}
  }
  if (flips > 0 && !announced) {
    announced = true;
    parentPort.postMessage('flipping');
  }
  if (stopping) parentPort.postMessage(flips);
  else setImmediate(loop);
}
loop();
`;

/**
 * Starts a worker thread that atomically re-points the symbolic link `link` at each of
 * `targets` in turn (symlink to a temporary name, then rename over `link`) as fast as it can,
 * while the calling thread races it. Resolves once the first flips are done.
 */
export async function startSymlinkFlipper(
  link: string,
  targets: string[],
): Promise<SymlinkFlipper> {
  const worker = new Worker(FLIPPER_SOURCE, { eval: true, workerData: { link, targets } });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  return {
    stop: async () => {
      const flips = new Promise<number>((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      const count = await flips;
      await worker.terminate();
      return count;
    },
  };
}
