/**
 * The `code` of the `BashError` events our server sends on the bash-events socket, named like the
 * Python exception OpenHands would report. The `BashError` schema itself accepts any string: an
 * OpenHands server may name other exceptions.
 */
export type BashErrorCode =
  | 'JSONDecodeError'
  | 'ValidationError'
  | 'ValueError'
  | 'FileNotFoundError'
  | 'PermissionError'
  | 'ServiceUnavailableError'
  | 'OSError'
  | 'Exception';
