import { describe, expect, it } from 'vitest';
import { steerControls } from './steer-controls.js';

describe('steerControls', () => {
  it('enables Pause only while running', () => {
    expect(steerControls('running')).toMatchObject({ pause: true, run: false });
    for (const status of ['idle', 'paused', 'finished', 'error', 'waiting_for_confirmation']) {
      expect(steerControls(status).pause).toBe(false);
    }
  });

  it('enables Run for the statuses the server starts a run for', () => {
    for (const status of ['idle', 'paused', 'error', 'stuck']) {
      expect(steerControls(status)).toMatchObject({ run: true, hint: null });
    }
  });

  it('disables Run when a run would do nothing, and says why', () => {
    expect(steerControls('finished')).toEqual({
      pause: false,
      run: false,
      hint: 'Finished: send a message to continue.',
    });
    expect(steerControls('waiting_for_confirmation').hint).toContain('pending actions');
    expect(steerControls('deleting').run).toBe(false);
    expect(steerControls('unknown')).toEqual({ pause: false, run: false, hint: null });
  });
});
