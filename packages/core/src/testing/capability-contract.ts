import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../internal/process/shell-quote.js';
import { actionExecutorOf } from '../workspace/action-executor.js';
import { directoryTransferOf } from '../workspace/directory-transfer.js';
import { portExposureOf } from '../workspace/port-exposure.js';
import { resourceMetricsOf } from '../workspace/resource-metrics.js';
import type { Workspace } from '../workspace/workspace.js';
import type { WorkspaceCapabilities } from '../workspace/workspace-capabilities.js';
import type { ContractContext } from './contract-context.js';
import { expectRejection } from './rejection-of.js';

const TIMEOUT_MS = 120_000;

/**
 * Capability section of the workspace contract: `capabilities`, when declared, is two booleans;
 * a workspace that declares `directoryTransfer` copies a tree both ways (relative workspace
 * paths resolve against `workingDir`) and refuses bad arguments and calls after `close()`; one
 * that declares `runtimeActions` lists its plugins and refuses malformed actions naming the
 * field. A capability that is not declared is not reachable through `directoryTransferOf` /
 * `actionExecutorOf`.
 */
export function describeCapabilityContract(context: ContractContext): void {
  describe('capabilities', () => {
    let local: string;
    beforeAll(async () => {
      local = await mkdtemp(path.join(tmpdir(), 'workspace-capability-contract-'));
    });
    afterAll(async () => {
      await rm(local, { recursive: true, force: true });
    });

    const declared = (workspace: Workspace) => ({
      directoryTransfer: workspace.capabilities?.directoryTransfer === true,
      runtimeActions: workspace.capabilities?.runtimeActions === true,
    });

    /** Without the capability the test checks that it is really not declared. */
    const expectUndeclared = (capability: keyof WorkspaceCapabilities): void => {
      expect(context.workspace().capabilities?.[capability] ?? false).toBe(false);
    };

    it('declares its capabilities as booleans, and only those are reachable', () => {
      const workspace = context.workspace();
      const { capabilities } = workspace;
      if (capabilities !== undefined) {
        expect(typeof capabilities.directoryTransfer).toBe('boolean');
        expect(typeof capabilities.runtimeActions).toBe('boolean');
      }
      const { directoryTransfer, runtimeActions } = declared(workspace);
      expect(directoryTransferOf(workspace) !== undefined).toBe(directoryTransfer);
      expect(actionExecutorOf(workspace) !== undefined).toBe(runtimeActions);
      expect(resourceMetricsOf(workspace) !== undefined).toBe(
        capabilities?.resourceMetrics === true,
      );
      expect(portExposureOf(workspace) !== undefined).toBe(capabilities?.portExposure === true);
    });

    it(
      'with directoryTransfer: a tree goes in and comes back the same',
      async () => {
        const transfer = directoryTransferOf(context.workspace());
        if (transfer === undefined) return expectUndeclared('directoryTransfer');
        const source = path.join(local, 'tree');
        await mkdir(path.join(source, 'nested'), { recursive: true });
        await writeFile(path.join(source, 'top.txt'), 'top\n');
        await writeFile(path.join(source, 'nested', 'deep.txt'), 'deep\n');
        const scratch = await context.scratchDir('directory');
        const relative = path.posix.relative(context.workspace().workingDir, `${scratch}/copy`);

        const uploaded = await transfer.uploadDirectory(source, relative);
        expect(uploaded).toMatchObject({ success: true, files: 2, bytes: 9 });
        expect(uploaded.destinationPath).toBe(`${scratch}/copy`);
        const seen = await context
          .workspace()
          .executeCommand(`cat ${shellQuote(`${scratch}/copy/nested/deep.txt`)}`);
        expect(seen.stdout).toBe('deep\n');

        const back = path.join(local, 'back');
        const downloaded = await transfer.downloadDirectory(relative, back);
        expect(downloaded).toMatchObject({ success: true, files: 2, bytes: 9 });
        expect(await readFile(path.join(back, 'top.txt'), 'utf8')).toBe('top\n');
        expect(await readFile(path.join(back, 'nested', 'deep.txt'), 'utf8')).toBe('deep\n');
      },
      TIMEOUT_MS,
    );

    it('with directoryTransfer: empty paths are INVALID_ARGUMENT naming the field', async () => {
      const transfer = directoryTransferOf(context.workspace());
      if (transfer === undefined) return expectUndeclared('directoryTransfer');
      const upload = await expectRejection(transfer.uploadDirectory('', 'x'), 'INVALID_ARGUMENT');
      expect(upload.details).toMatchObject({ field: 'sourceDir' });
      const download = await expectRejection(
        transfer.downloadDirectory('x', ''),
        'INVALID_ARGUMENT',
      );
      expect(download.details).toMatchObject({ field: 'destinationDir' });
    });

    it(
      'with runtimeActions: lists plugins and refuses malformed actions naming the field',
      async () => {
        const executor = actionExecutorOf(context.workspace());
        if (executor === undefined) return expectUndeclared('runtimeActions');
        expect(Array.isArray(await executor.runtimePlugins())).toBe(true);
        const unnamed = await expectRejection(
          executor.executeAction({ action: '', args: {} }),
          'INVALID_ARGUMENT',
        );
        expect(unnamed.details).toMatchObject({ field: 'action.action' });
        const late = await expectRejection(
          executor.executeAction({ action: 'run_ipython', args: {}, timeout: 0 }),
          'INVALID_ARGUMENT',
        );
        expect(late.details).toMatchObject({ field: 'action.timeout' });
      },
      TIMEOUT_MS,
    );

    it(
      'declared capabilities reject with WORKSPACE_CLOSED after close()',
      async () => {
        const workspace = await context.makeWorkspace();
        await workspace.close();
        const transfer = directoryTransferOf(workspace);
        if (transfer !== undefined) {
          await expectRejection(transfer.uploadDirectory(local, 'after-close'), 'WORKSPACE_CLOSED');
          await expectRejection(transfer.downloadDirectory('.', local), 'WORKSPACE_CLOSED');
        }
        const executor = actionExecutorOf(workspace);
        if (executor !== undefined) {
          await expectRejection(
            executor.executeAction({ action: 'run_ipython', args: { code: '1' } }),
            'WORKSPACE_CLOSED',
          );
          await expectRejection(executor.runtimePlugins(), 'WORKSPACE_CLOSED');
        }
      },
      TIMEOUT_MS,
    );

    it('with resourceMetrics: a sample taken now, with the disk of the working directory', async () => {
      const metrics = resourceMetricsOf(context.workspace());
      if (metrics === undefined) return expectUndeclared('resourceMetrics');
      const sample = await metrics.metrics();
      expect(sample.sampledAt).toBeInstanceOf(Date);
      expect(Math.abs(Date.now() - sample.sampledAt.getTime())).toBeLessThan(5 * 60_000);
      expect(sample.diskTotalBytes).toBeGreaterThan(0);
      expect(sample.diskUsedBytes).toBeLessThanOrEqual(sample.diskTotalBytes as number);
    });

    it(
      'with portExposure: a server a command started answers through the exposed URL, until closed',
      async () => {
        const ports = portExposureOf(context.workspace());
        if (ports === undefined) return expectUndeclared('portExposure');
        const dir = await context.scratchDir('port');
        // Node or Python, whichever the workspace has, serves on a port it picks and says which.
        const started = await context
          .workspace()
          .executeCommand(
            [
              'if command -v node >/dev/null; then',
              `  node -e "const s=require('http').createServer((q,r)=>r.end('served '+q.url)).listen(0,'127.0.0.1',()=>console.log(s.address().port))" > port.txt 2>&1 &`,
              'else',
              `  python3 -c "import http.server as h; s=h.HTTPServer(('127.0.0.1',0),type('H',(h.BaseHTTPRequestHandler,),{'do_GET':lambda self:(self.send_response(200),self.end_headers(),self.wfile.write(('served '+self.path).encode()))})); print(s.server_port,flush=True); s.serve_forever()" > port.txt 2>&1 &`,
              'fi',
              'echo $! > server.pid',
              'for i in $(seq 200); do [ -s port.txt ] && break; sleep 0.05; done; cat port.txt',
            ].join('\n'),
            { cwd: dir },
          );
        const port = Number(started.stdout.trim());
        expect(
          port,
          `the contract needs node or python3 in the workspace: ${started.stdout}`,
        ).toBeGreaterThan(0);
        try {
          await expectRejection(ports.exposePort(0), 'INVALID_ARGUMENT');
          const exposed = await ports.exposePort(port);
          const response = await fetch(`${exposed.url}/hello?x=1`);
          expect(await response.text()).toBe('served /hello?x=1');
          await exposed.close();
          await expect(fetch(exposed.url)).rejects.toThrow();
        } finally {
          await context.workspace().executeCommand('kill $(cat server.pid)', { cwd: dir });
        }
      },
      TIMEOUT_MS,
    );
  });
}
