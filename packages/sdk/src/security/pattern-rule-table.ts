/** A risk level a rule can give (rules never say `UNKNOWN`). */
export type RuleRisk = 'LOW' | 'MEDIUM' | 'HIGH';

/** What the pattern analyzer reads of one action. */
export interface ActionFacts {
  /** Shell lines the action runs (a terminal command, `bash -c` strings, IPython `!` lines…). */
  shell: string[];
  /** Program code the action runs (an IPython cell, `python -c` / `node -e` code). */
  code: string[];
  /** Files the action writes (the file editor's `create`, `str_replace`, `insert`, `undo_edit`). */
  writes: string[];
  /** Files the action reads (the file editor's `view`). */
  reads: string[];
  /** The working directory relative paths resolve against. */
  workingDir: string;
}

/** One rule that matched, and how risky it rates the action. */
export interface RuleFinding {
  /** The rule's id (stable: see {@link PATTERN_RULES}). */
  rule: PatternRuleId;
  risk: RuleRisk;
  /** What matched, for people (never a secret's value: commands are not quoted whole). */
  detail: string;
}

/** The ids of the pattern rules. */
export type PatternRuleId =
  | 'destructive-delete'
  | 'disk-overwrite'
  | 'git-history-rewrite'
  | 'permissions-opened'
  | 'system-control'
  | 'write-outside-workdir'
  | 'credential-access'
  | 'fetch-and-execute'
  | 'network-fetch'
  | 'privilege-escalation';

/**
 * The documented rules of the pattern analyzer, by id: the highest risk each can give and what it
 * looks for. An action's risk is the highest of its findings, `LOW` when none matched.
 */
export const PATTERN_RULES: Readonly<Record<PatternRuleId, { risk: RuleRisk; summary: string }>> = {
  'destructive-delete': {
    risk: 'HIGH',
    summary:
      'rm/shred/find -delete of the root, a system directory, the home directory or a broad glob (*, .*), recursive deletes outside the working directory, --no-preserve-root',
  },
  'disk-overwrite': {
    risk: 'HIGH',
    summary:
      'mkfs*, mke2fs, mkswap, wipefs, fdisk/sfdisk/parted on a device, dd of=/dev/… (not /dev/null)',
  },
  'git-history-rewrite': {
    risk: 'HIGH',
    summary:
      'git push --force / -f / +refspec / --mirror (HIGH); --force-with-lease, --delete, git reset --hard, git clean -f (MEDIUM)',
  },
  'permissions-opened': {
    risk: 'HIGH',
    summary:
      'chmod -R to world-writable modes (777, 666, a+w, o+w…), chmod/chown/chgrp of system or home directories',
  },
  'system-control': {
    risk: 'HIGH',
    summary: 'shutdown, reboot, halt, poweroff, init 0/6, kill -1 of every process, fork bombs',
  },
  'write-outside-workdir': {
    risk: 'HIGH',
    summary:
      'file editor writes, redirections (>, >>), tee, cp/mv/install/ln/rsync destinations, touch/mkdir/truncate/sed -i targets outside the working directory (MEDIUM; HIGH in system directories or the home directory itself; /tmp and /dev/null are fine)',
  },
  'credential-access': {
    risk: 'HIGH',
    summary:
      '~/.ssh, private keys (id_rsa, id_ed25519…), .aws/credentials, /etc/shadow, /etc/sudoers, .netrc, .git-credentials, .docker/config.json, .kube/config, .gnupg, .pgpass (HIGH); .env files, .npmrc, .pypirc, *.pem, *.key (MEDIUM)',
  },
  'fetch-and-execute': {
    risk: 'HIGH',
    summary:
      'curl/wget output piped to a shell or interpreter, sh <(curl …), bash -c "$(curl …)", eval "$(wget …)", a download run in the same line, python/node code that fetches and exec()s/eval()s',
  },
  'network-fetch': {
    risk: 'MEDIUM',
    summary: 'curl, wget, … of an http(s) URL (as OpenHands rates network access)',
  },
  'privilege-escalation': {
    risk: 'MEDIUM',
    summary: 'a command run through sudo, doas or su',
  },
};
