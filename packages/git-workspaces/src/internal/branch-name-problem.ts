// Characters git never allows in a ref name besides controls: space, DEL, ~ ^ : ? * [ and \.
const FORBIDDEN_CHARACTER = /[ \u007f~^:?*[\\]/;

/** The first character of `name` below U+0020 (a control character), if any. */
function controlCharacter(name: string): string | undefined {
  for (const character of name) if (character.charCodeAt(0) < 0x20) return character;
  return undefined;
}

/**
 * Why `name` cannot be a branch, or `undefined` when it can: the rules of
 * `git check-ref-format --branch` (git-check-ref-format(1)), checked without starting git, plus
 * ours: no leading `-` (an option to git) or `@` (git's `@{-N}` shorthand), and not `HEAD`.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.startsWith('-') || name.startsWith('@')) return 'must not start with "-" or "@"';
  if (name === 'HEAD') return 'must not be "HEAD"';
  const character = controlCharacter(name) ?? FORBIDDEN_CHARACTER.exec(name)?.[0];
  if (character !== undefined) {
    return `must not contain ${JSON.stringify(character)} (no spaces, control characters or ~ ^ : ? * [ \\)`;
  }
  if (name.includes('..')) return 'must not contain ".."';
  if (name.includes('@{')) return 'must not contain "@{"';
  if (name.endsWith('.')) return 'must not end with "."';
  for (const component of name.split('/')) {
    if (component === '') return 'must not start or end with "/" or contain "//"';
    if (component.startsWith('.')) return 'no part between slashes may start with "."';
    if (component.endsWith('.lock')) return 'no part between slashes may end with ".lock"';
  }
  return undefined;
}
