import { createRequire } from 'node:module';
import path from 'node:path';
import { findExecutable, SYSTEM_PATH } from '@agent-workspace/core/internal';
import type { PluginRequirement } from './plugin-requirement.js';

const requireFromHere = createRequire(import.meta.url);

/** What {@link checkRequirements} found. */
export interface RequirementReport {
  /** One sentence per unmet requirement: what is missing and how to install it. */
  problems: string[];
  /** Each binary requirement's resolved path, by requirement name. */
  binaries: Record<string, string>;
}

/**
 * Checks a plugin's requirements in order. Binaries are looked up as given (absolute paths) or on
 * `PATH` and the system directories; modules are resolved from this package; environment
 * variables must be set and non-empty; `check` requirements run their own test.
 */
export async function checkRequirements(
  requirements: readonly PluginRequirement[],
  signal: AbortSignal,
): Promise<RequirementReport> {
  const problems: string[] = [];
  const binaries: Record<string, string> = {};
  const searchPath = [process.env.PATH ?? '', SYSTEM_PATH].join(path.delimiter);
  for (const requirement of requirements) {
    const missing = (what: string) =>
      problems.push(`${what}; install it with: ${requirement.install}`);
    switch (requirement.kind) {
      case 'binary': {
        const found = requirement.candidates
          .map((candidate) =>
            path.isAbsolute(candidate)
              ? findExecutable(path.basename(candidate), path.dirname(candidate))
              : findExecutable(candidate, searchPath),
          )
          .find((resolved) => resolved !== undefined);
        if (found) binaries[requirement.name] = found;
        else
          missing(
            `${requirement.name} was not found (looked for ${requirement.candidates.join(', ')})`,
          );
        break;
      }
      case 'module':
        try {
          requireFromHere.resolve(requirement.name);
        } catch {
          missing(`the Node package ${requirement.name} is not installed`);
        }
        break;
      case 'env':
        if (!process.env[requirement.name]) missing(`${requirement.name} is not set`);
        break;
      case 'check': {
        const reason = await requirement.check(signal);
        if (reason !== undefined) missing(`${requirement.name}: ${reason}`);
        break;
      }
    }
  }
  return { problems, binaries };
}
