import { describe, expect, it } from 'vitest';
import { expectZodIssueAt } from '../test-support/expect-zod-issue.js';
import { bashCommandFromWire, bashCommandWireSchema } from './bash-command.js';
import { bashErrorFromWire, bashErrorWireSchema } from './bash-error.js';
import { bashEventFromWire, bashEventWireSchema } from './bash-event.js';
import { bashOutputFromWire, bashOutputWireSchema } from './bash-output.js';

const COMMAND_ID = '5b8f3c0e2a9d4e7f8c1b6a3d2e4f5a6b';
const OUTPUT_ID = '9e2d7c4b1a0f4e3d8c6b5a4f3e2d1c0b';

const commandWire = {
  kind: 'BashCommand',
  id: COMMAND_ID,
  timestamp: '2026-08-22T10:00:00.123456Z',
  command: 'ls',
  cwd: null,
  timeout: 300,
};

const runningOutputWire = {
  kind: 'BashOutput',
  id: OUTPUT_ID,
  timestamp: '2026-08-22T10:00:01.000001Z',
  command_id: COMMAND_ID,
  order: 0,
  exit_code: null,
  stdout: null,
  stderr: 'warning: something\n',
};

const finalOutputWire = {
  kind: 'BashOutput',
  id: 'aa2d7c4b1a0f4e3d8c6b5a4f3e2d1c0b',
  timestamp: '2026-08-22T10:00:02.500000Z',
  command_id: COMMAND_ID,
  order: 1,
  exit_code: 0,
  stdout: 'a.txt\nb.txt\n',
  stderr: null,
};

const errorWire = {
  kind: 'BashError',
  id: 'bb2d7c4b1a0f4e3d8c6b5a4f3e2d1c0b',
  timestamp: '2026-08-22T10:00:03.000000Z',
  code: 'ValueError',
  detail: 'Field required: command',
};

describe('BashCommand', () => {
  it('parses a command with a null cwd and the default timeout', () => {
    expect(bashCommandFromWire(commandWire)).toEqual({
      kind: 'BashCommand',
      id: COMMAND_ID,
      timestamp: '2026-08-22T10:00:00.123456Z',
      command: 'ls',
      cwd: null,
      timeoutSeconds: 300,
    });
  });

  it('keeps every wire field, the null cwd included', () => {
    expect(bashCommandWireSchema.parse(commandWire)).toStrictEqual(commandWire);
    expect(bashCommandFromWire(commandWire)).toStrictEqual({
      kind: commandWire.kind,
      id: commandWire.id,
      timestamp: commandWire.timestamp,
      command: commandWire.command,
      cwd: commandWire.cwd,
      timeoutSeconds: commandWire.timeout,
    });
  });

  it('normalises a +00:00 timestamp to the Z form', () => {
    const event = bashCommandFromWire({ ...commandWire, timestamp: '2026-08-22T10:00:00+00:00' });
    expect(event.timestamp).toBe('2026-08-22T10:00:00.000000Z');
  });

  it('names the bad field', () => {
    expectZodIssueAt(() => bashCommandFromWire({ ...commandWire, kind: 'BashOutput' }), ['kind']);
    expectZodIssueAt(
      () => bashCommandFromWire({ ...commandWire, id: COMMAND_ID.slice(1) }),
      ['id'],
    );
    expectZodIssueAt(
      () => bashCommandFromWire({ ...commandWire, timestamp: 'now' }),
      ['timestamp'],
    );
    const { command: _, ...withoutCommand } = commandWire;
    expectZodIssueAt(() => bashCommandFromWire(withoutCommand), ['command']);
  });
});

describe('BashOutput', () => {
  it('parses a running chunk with null exit code and null stdout', () => {
    expect(bashOutputFromWire(runningOutputWire)).toEqual({
      kind: 'BashOutput',
      id: OUTPUT_ID,
      timestamp: '2026-08-22T10:00:01.000001Z',
      commandId: COMMAND_ID,
      order: 0,
      exitCode: null,
      stdout: null,
      stderr: 'warning: something\n',
    });
  });

  it('parses the final chunk', () => {
    const output = bashOutputFromWire(finalOutputWire);
    expect(output.exitCode).toBe(0);
    expect(output.stdout).toBe('a.txt\nb.txt\n');
    expect(output.stderr).toBeNull();
  });

  it('keeps every wire field, nulls included', () => {
    for (const wire of [runningOutputWire, finalOutputWire]) {
      expect(bashOutputWireSchema.parse(wire)).toStrictEqual(wire);
      expect(bashOutputFromWire(wire)).toStrictEqual({
        kind: wire.kind,
        id: wire.id,
        timestamp: wire.timestamp,
        commandId: wire.command_id,
        order: wire.order,
        exitCode: wire.exit_code,
        stdout: wire.stdout,
        stderr: wire.stderr,
      });
    }
  });

  it('fills OpenHands defaults for omitted optional fields', () => {
    const { order: _o, exit_code: _e, stdout: _s, stderr: _r, ...minimal } = runningOutputWire;
    const output = bashOutputFromWire(minimal);
    expect(output).toMatchObject({ order: 0, exitCode: null, stdout: null, stderr: null });
  });

  it('names the bad field', () => {
    expectZodIssueAt(() => bashOutputFromWire({ ...runningOutputWire, order: -1 }), ['order']);
    expectZodIssueAt(() => bashOutputFromWire({ ...runningOutputWire, order: 1.5 }), ['order']);
    expectZodIssueAt(
      () => bashOutputFromWire({ ...runningOutputWire, command_id: COMMAND_ID.slice(0, 31) }),
      ['command_id'],
    );
    expectZodIssueAt(
      () => bashOutputFromWire({ ...runningOutputWire, exit_code: '0' }),
      ['exit_code'],
    );
  });
});

describe('BashError', () => {
  it('parses a websocket error event, every wire field kept', () => {
    expect(bashErrorWireSchema.parse(errorWire)).toStrictEqual(errorWire);
    expect(bashErrorFromWire(errorWire)).toStrictEqual({
      kind: errorWire.kind,
      id: errorWire.id,
      timestamp: errorWire.timestamp,
      code: errorWire.code,
      detail: errorWire.detail,
    });
  });

  it('names the bad field', () => {
    const { detail: _, ...withoutDetail } = errorWire;
    expectZodIssueAt(() => bashErrorFromWire(withoutDetail), ['detail']);
    expectZodIssueAt(() => bashErrorFromWire({ ...errorWire, kind: 'BashCommand' }), ['kind']);
  });
});

describe('BashEvent', () => {
  it('picks the model by kind', () => {
    expect(bashEventFromWire(commandWire).kind).toBe('BashCommand');
    expect(bashEventFromWire(runningOutputWire).kind).toBe('BashOutput');
    const error = bashEventFromWire(errorWire);
    expect(error).toEqual({
      kind: 'BashError',
      id: errorWire.id,
      timestamp: errorWire.timestamp,
      code: 'ValueError',
      detail: 'Field required: command',
    });
  });

  it('keeps every wire field of every kind', () => {
    for (const wire of [commandWire, runningOutputWire, finalOutputWire, errorWire]) {
      expect(bashEventWireSchema.parse(wire)).toStrictEqual(wire);
    }
    expect(bashEventFromWire(commandWire)).toStrictEqual(bashCommandFromWire(commandWire));
    expect(bashEventFromWire(runningOutputWire)).toStrictEqual(
      bashOutputFromWire(runningOutputWire),
    );
    expect(bashEventFromWire(finalOutputWire)).toStrictEqual(bashOutputFromWire(finalOutputWire));
    expect(bashEventFromWire(errorWire)).toStrictEqual(bashErrorFromWire(errorWire));
  });

  it('rejects an unknown or missing kind at the kind field', () => {
    expectZodIssueAt(() => bashEventFromWire({ ...commandWire, kind: 'BashInput' }), ['kind']);
    const { kind: _, ...withoutKind } = commandWire;
    expectZodIssueAt(() => bashEventFromWire(withoutKind), ['kind']);
  });

  it('reports the field of the chosen model', () => {
    expectZodIssueAt(() => bashEventFromWire({ ...errorWire, code: 1 }), ['code']);
    expectZodIssueAt(() => bashEventFromWire({ ...runningOutputWire, id: 'x'.repeat(32) }), ['id']);
  });
});
