import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { WorkspaceError } from '@agent-workspace/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readAptMirror } from './read-apt-mirror.js';
import { readHostSuite } from './read-host-suite.js';

let rootDir: string;

beforeEach(async () => {
  rootDir = await mkdtemp(path.join(os.tmpdir(), 'apt-root-'));
  await mkdir(path.join(rootDir, 'etc/apt/sources.list.d'), { recursive: true });
});
afterEach(() => rm(rootDir, { recursive: true, force: true }));

/** Writes `text` to `etc/apt/<relative>` under the fake root. */
const writeApt = (relative: string, text: string) =>
  writeFile(path.join(rootDir, 'etc/apt', relative), text);

describe('readAptMirror', () => {
  it('reads the main archive from deb822 sources, not -security or -updates', async () => {
    await writeApt(
      'sources.list.d/debian.sources',
      [
        'Types: deb',
        'URIs: http://security.mirror.test/debian-security',
        'Suites: bookworm-security',
        'Components: main',
        '',
        'Types: deb',
        '# a snapshot comment',
        'URIs: http://mirror.test/debian/',
        'Suites: bookworm bookworm-updates',
        'Components: main',
        'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg',
        '',
      ].join('\n'),
    );
    expect(await readAptMirror({ suite: 'bookworm', rootDir })).toBe('http://mirror.test/debian');
  });

  it('skips disabled stanzas, other suites and deb-src entries', async () => {
    await writeApt(
      'sources.list.d/00-other.sources',
      [
        'Types: deb',
        'URIs: http://disabled.mirror.test/debian',
        'Suites: trixie',
        'Components: main',
        'Enabled: no',
        '',
        'Types: deb-src',
        'URIs: http://source.mirror.test/debian',
        'Suites: trixie',
        'Components: main',
        '',
        'Types: deb',
        'URIs: http://old.mirror.test/debian',
        'Suites: bookworm',
        'Components: main',
      ].join('\n'),
    );
    await writeApt(
      'sources.list.d/10-debian.sources',
      'Types: deb deb-src\nURIs: https://mirror.test/debian\nSuites:\n trixie\n trixie-updates\nComponents: main contrib\n',
    );
    expect(await readAptMirror({ suite: 'trixie', rootDir })).toBe('https://mirror.test/debian');
  });

  it('reads one-line sources.list entries, with options and comments', async () => {
    await writeApt(
      'sources.list',
      [
        '# deb http://commented.mirror.test/debian bookworm main',
        'deb-src http://source.mirror.test/debian bookworm main',
        'deb [ arch=amd64 signed-by=/usr/share/keyrings/x.gpg ] http://security.mirror.test/debian-security bookworm-security main',
        'deb [arch=amd64] http://mirror.test/debian bookworm main contrib # the archive',
        '',
      ].join('\n'),
    );
    expect(await readAptMirror({ suite: 'bookworm', rootDir })).toBe('http://mirror.test/debian');
  });

  it('prefers an entry with the main component and reads *.list files', async () => {
    await writeApt(
      'sources.list.d/extra.list',
      'deb http://contrib.mirror.test/debian bookworm contrib\n',
    );
    await writeApt(
      'sources.list.d/main.list',
      'deb http://main.mirror.test/debian bookworm main\n',
    );
    expect(await readAptMirror({ suite: 'bookworm', rootDir })).toBe(
      'http://main.mirror.test/debian',
    );
  });

  it('ignores files that are neither .list nor .sources', async () => {
    await writeApt(
      'sources.list.d/old.list.disabled',
      'deb http://mirror.test/debian bookworm main\n',
    );
    const error = await readAptMirror({ suite: 'bookworm', rootDir }).catch((caught) => caught);
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
  });

  it('fails with INVALID_ARGUMENT naming the mirror option when the suite has no archive', async () => {
    await writeApt(
      'sources.list',
      'deb http://security.mirror.test/debian-security bookworm-security main\n',
    );
    const error = await readAptMirror({ suite: 'bookworm', rootDir }).catch((caught) => caught);
    expect(WorkspaceError.isInstance(error, 'INVALID_ARGUMENT')).toBe(true);
    expect((error as WorkspaceError).details.field).toBe('mirror');
    expect((error as Error).message).toContain('bookworm');
  });
});

describe('readHostSuite', () => {
  const writeOsRelease = (text: string) => writeFile(path.join(rootDir, 'etc/os-release'), text);

  it('reads VERSION_CODENAME of a Debian-based host', async () => {
    await writeOsRelease(
      'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nID=debian\nVERSION_CODENAME=trixie\n',
    );
    expect(await readHostSuite({ rootDir })).toBe('trixie');
    await writeOsRelease('ID=ubuntu\nID_LIKE="debian"\nVERSION_CODENAME="noble"\n');
    expect(await readHostSuite({ rootDir })).toBe('noble');
  });

  it('fails with INVALID_ARGUMENT on a non-Debian host or without os-release', async () => {
    const missing = await readHostSuite({ rootDir }).catch((caught) => caught);
    expect(WorkspaceError.isInstance(missing, 'INVALID_ARGUMENT')).toBe(true);
    await writeOsRelease('ID=fedora\nVERSION_CODENAME=""\nVERSION_ID=40\n');
    const other = await readHostSuite({ rootDir }).catch((caught) => caught);
    expect(WorkspaceError.isInstance(other, 'INVALID_ARGUMENT')).toBe(true);
    expect((other as WorkspaceError).details.field).toBe('suite');
  });
});
