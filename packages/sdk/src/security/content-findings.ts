import type { RuleFinding } from './pattern-rule-table.js';

const CREDENTIALS_HIGH: readonly [RegExp, string][] = [
  [/(?:^|[\s/'"=:])(?:~|\$HOME|\$\{HOME\}|\/root|\/home\/[^/\s]+)\/\.ssh(?:\/|\b)/, '~/.ssh'],
  [/(?:^|[\s/'"=])\.ssh\/(?:id_|authorized_keys|known_hosts|config\b)/, '.ssh files'],
  [/\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?\b/, 'an SSH private key'],
  [/\.aws\/(?:credentials|config)\b/, 'AWS credentials'],
  [/\/etc\/(?:g?shadow|sudoers|master\.passwd)\b/, '/etc/shadow or sudoers'],
  [/(?:^|[\s/'"=])\.(?:netrc|git-credentials|pgpass)\b/, '.netrc, .git-credentials or .pgpass'],
  [/\.docker\/config\.json\b/, 'Docker credentials'],
  [/\.kube\/config\b/, 'Kubernetes credentials'],
  [/(?:^|[\s/'"=])\.gnupg(?:\/|\b)/, 'the GnuPG keyring'],
  [
    /\.config\/gcloud\/(?:credentials|application_default_credentials|access_tokens)/,
    'gcloud credentials',
  ],
  [/\.azure\/(?:accessTokens|msal_token_cache)/, 'Azure credentials'],
];

const CREDENTIALS_MEDIUM: readonly [RegExp, string][] = [
  [/(?:^|[\s/'"=<>])\.env(?:\.[\w-]+)?(?=$|[\s'";|&)<>])/, 'a .env file'],
  [/(?:^|[\s/'"=])\.(?:npmrc|pypirc)\b/, '.npmrc or .pypirc'],
  [/[\w-]\.(?:pem|key|p12|pfx)(?=$|[\s'";|&)<>])/, 'a key or certificate file'],
];

/** A finding when `text` names a credential file (HIGH) or a secrets-bearing one (MEDIUM). */
export function credentialFindings(text: string): RuleFinding[] {
  for (const [pattern, what] of CREDENTIALS_HIGH) {
    if (pattern.test(text)) return [{ rule: 'credential-access', risk: 'HIGH', detail: what }];
  }
  for (const [pattern, what] of CREDENTIALS_MEDIUM) {
    if (pattern.test(text)) return [{ rule: 'credential-access', risk: 'MEDIUM', detail: what }];
  }
  return [];
}

/** Process substitution and `$(…)` forms of fetch-and-execute, read off the raw line. */
export function fetchAndExecuteInText(line: string): RuleFinding[] {
  const fetch = '(?:curl|wget|fetch|aria2c)\\b';
  const patterns = [
    new RegExp(
      `\\b(?:(?:ba|z|da|k)?sh|source|python[0-9.]*|perl|ruby|node)\\s+(?:-s\\s+)?<\\(\\s*${fetch}`,
    ),
    new RegExp(`(?:^|[;&|]\\s*)\\.\\s+<\\(\\s*${fetch}`),
    new RegExp(`\\b(?:(?:ba|z|da|k)?sh\\s+-c|eval)\\s+["']?(?:\\$\\(|\`)\\s*${fetch}`),
  ];
  return patterns.some((pattern) => pattern.test(line))
    ? [{ rule: 'fetch-and-execute', risk: 'HIGH', detail: 'fetched code is run by a shell' }]
    : [];
}

/** Python / JavaScript code: fetch-and-exec, and shell commands it runs. */
export function codeFindings(code: string): RuleFinding[] {
  const fetches =
    /\b(?:urllib|urlopen|requests\s*\.\s*(?:get|post)|http\.client|httpx|urlretrieve|fetch\s*\(|https?\.get\s*\()/.test(
      code,
    );
  const executes =
    /\b(?:exec|eval|execfile|compile|Function)\s*\(|\bimportlib\b|runpy|[(,]\s*eval\s*[),]/.test(
      code,
    );
  if (fetches && executes) {
    return [{ rule: 'fetch-and-execute', risk: 'HIGH', detail: 'code fetches and executes code' }];
  }
  return [];
}
