import { constants as osConstants } from 'node:os';
import type { TerminationReason } from '@agent-workspace/protocol';
import { readOomKills } from '../internal/process/read-oom-kills.js';
import { classifyTermination, type TerminationFacts } from './classify-termination.js';

const SIGKILL_EXIT = 128 + osConstants.signals.SIGKILL;

/** The OOM-kill count read in flight, shared by the commands that start while it runs. */
let oomKillsRead: Promise<number | undefined> | undefined;

/**
 * {@link readOomKills} for a command about to start: a read that is still running began before
 * this command, so its count is as good a "before" as a new one, and commands started together
 * (a burst of them) share one read.
 */
export function oomKillsSoFar(): Promise<number | undefined> {
  if (oomKillsRead) return oomKillsRead;
  const read = readOomKills();
  oomKillsRead = read;
  const done = (): void => {
    if (oomKillsRead === read) oomKillsRead = undefined;
  };
  read.then(done, done);
  return read;
}

/**
 * {@link classifyTermination} of an ended command, given the count {@link oomKillsSoFar} read
 * before it started. The count is read again only after a kill (so an OOM kill can be told apart).
 */
export function classifyWithOomKills(
  facts: Omit<TerminationFacts, 'oomKillsBefore' | 'oomKillsAfter'>,
  oomKillsBefore: Promise<number | undefined>,
): Promise<TerminationReason | undefined> {
  const killed = facts.exitCode === SIGKILL_EXIT || facts.exitSignal === 'SIGKILL';
  const counted = killed
    ? Promise.all([oomKillsBefore, readOomKills()])
    : Promise.resolve([undefined, undefined]);
  return counted.then(([before, after]) =>
    classifyTermination({ ...facts, oomKillsBefore: before, oomKillsAfter: after }),
  );
}
