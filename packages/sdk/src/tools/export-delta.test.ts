import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { exportDelta } from './export-delta.js';

/** `export -p` of a bash that ran `script` with only `env` in its environment. */
function exportsAfter(script: string, env: Record<string, string> = {}): string {
  return execFileSync('bash', ['-c', `${script}\nexport -p`], { env, encoding: 'utf8' });
}

describe('exportDelta', () => {
  it('names what to unset and the entries to evaluate, bash quoting included', () => {
    const base = { KEPT: 'same', CHANGED: 'old', GONE: 'x' };
    const fresh = exportsAfter('', base);
    const saved = exportsAfter(
      `export CHANGED='new "quoted" $dollar \\\\back'; unset GONE; export MULTI=$'a\\nb'; export BARE`,
      base,
    );
    const delta = exportDelta(fresh, saved);
    expect(delta?.unset).toEqual(['GONE']);
    expect(delta?.restore).toContain('CHANGED=');
    expect(delta?.restore).toContain('MULTI=');
    expect(delta?.restore).toContain('declare -x BARE\n');
    expect(delta?.restore).not.toContain('KEPT');
    // Applied to a shell that starts with the base, it gives exactly the saved exports.
    const applied = exportsAfter(`unset -v ${delta?.unset.join(' ')}\neval "$DELTA"`, {
      ...base,
      DELTA: delta!.restore,
    }).replace(/^declare -x DELTA=.*\n/m, '');
    expect(applied).toBe(saved);
  });

  it('gives nothing to do for equal texts, and undefined for text that is not export -p', () => {
    const fresh = exportsAfter('', { A: '1' });
    expect(exportDelta(fresh, fresh)).toEqual({ unset: [], restore: '' });
    expect(exportDelta(fresh, 'A=1\n')).toBeUndefined();
    expect(exportDelta('declare -x A="unterminated\n', fresh)).toBeUndefined();
    expect(exportDelta('declare -rx A="1"\n', fresh)).toBeUndefined();
  });
});
