import { WORKSPACE_ARCHIVE_GIT_SECRETS } from '@agent-workspace/protocol';
import picomatch from 'picomatch';

/** Decides whether a path (relative to the archived directory, `/`-separated) is left out. */
export type ArchiveExcludeMatcher = (relative: string, isDirectory: boolean) => boolean;

// One path component at a time, like Python's fnmatch: `*`, `?` and `[...]` only (no braces,
// extglobs or negation, which could also make the compiled expression expensive), dots matched.
const componentOptions: picomatch.PicomatchOptions = {
  dot: true,
  nobrace: true,
  noextglob: true,
  nonegate: true,
};

interface CompiledExclude {
  segments: ((component: string) => boolean)[];
  directoryOnly: boolean;
}

/**
 * Compiles the workspace archive's exclude globs (OpenHands' rules, the same for both formats):
 * a bare name matches any component at any depth, a pattern with `/` is anchored at the root
 * and matches the path it names and everything below, `*` never crosses `/`, and a trailing `/`
 * matches directories (and what they hold) but never a file of that name.
 */
export function compileArchiveExcludes(patterns: readonly string[]): ArchiveExcludeMatcher {
  const compiled: CompiledExclude[] = [];
  for (const raw of patterns) {
    const pattern = raw.replace(/\/+$/, '');
    if (pattern === '') continue;
    compiled.push({
      // fnmatch negates a class with `[!...]`; picomatch reads `!` there literally.
      segments: pattern
        .split('/')
        .map((segment) => picomatch(segment.replaceAll('[!', '[^'), componentOptions)),
      directoryOnly: raw.endsWith('/'),
    });
  }
  return (relative, isDirectory) => {
    const parts = relative.split('/');
    return compiled.some((exclude) => matches(exclude, parts, isDirectory));
  };
}

function matches(exclude: CompiledExclude, parts: string[], isDirectory: boolean): boolean {
  const { segments, directoryOnly } = exclude;
  if (segments.length > 1) {
    if (parts.length < segments.length) return false;
    if (!segments.every((segment, index) => segment(parts[index] as string))) return false;
    return !(directoryOnly && !isDirectory && parts.length === segments.length);
  }
  const [segment] = segments as [(component: string) => boolean];
  const candidates = isDirectory || !directoryOnly ? parts : parts.slice(0, -1);
  return candidates.some((part) => segment(part));
}

/**
 * True for a credential-bearing git internal: one of `WORKSPACE_ARCHIVE_GIT_SECRETS`, or
 * anything below `logs/`, inside any `.git` directory (submodules' `.git/modules/<name>/`
 * included). The `.git` directory itself is not one.
 */
export function isGitSecret(relative: string): boolean {
  const parts = relative.split('/');
  const at = parts.indexOf('.git');
  if (at === -1) return false;
  const inside = parts.slice(at + 1);
  if (inside.length === 0) return false;
  return inside.includes('logs') || WORKSPACE_ARCHIVE_GIT_SECRETS.includes(inside.at(-1) as string);
}
