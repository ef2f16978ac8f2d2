import type { z } from 'zod';
import type { ValidationIssue } from '../models/validation-issue.js';

/** Where a rejected value came from; the first element of each issue's `loc`. */
export type ValidationLocation = 'body' | 'query' | 'path';

/** A 422 body: `{"detail": [{type, loc, msg, input?, ctx?}, …]}`. */
export interface ValidationErrorBody {
  detail: ValidationIssue[];
}

type ZodIssue = z.core.$ZodIssue;

/** pydantic error type and the noun its message uses, by zod's `expected` type. */
const TYPE_ERRORS: Record<string, [type: string, noun: string]> = {
  string: ['string_type', 'a valid string'],
  number: ['float_type', 'a valid number'],
  int: ['int_type', 'a valid integer'],
  boolean: ['bool_type', 'a valid boolean'],
  array: ['list_type', 'a valid list'],
  object: ['dict_type', 'a valid dictionary'],
  record: ['dict_type', 'a valid dictionary'],
  null: ['none_required', 'None'],
};

/** The value at `path` inside `root`, or `undefined` when the path leads nowhere. */
function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Python-style repr of a literal, as pydantic quotes expected values. */
function repr(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : String(value);
}

/** Joins expected values the pydantic way: `'a', 'b' or 'c'`. */
function joinExpected(values: readonly unknown[]): string {
  const quoted = values.map(repr);
  return quoted.length <= 1
    ? (quoted[0] ?? '')
    : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** A bound check as pydantic words it, e.g. `greater_than_equal` / "greater than or equal to 1". */
function boundIssue(issue: Extract<ZodIssue, { code: 'too_small' | 'too_big' }>) {
  const small = issue.code === 'too_small';
  const limit = Number(small ? issue.minimum : issue.maximum);
  if (issue.origin === 'string') {
    const [type, word, key] = small
      ? ['string_too_short', 'least', 'min_length']
      : ['string_too_long', 'most', 'max_length'];
    const noun = limit === 1 ? 'character' : 'characters';
    return { type, msg: `String should have at ${word} ${limit} ${noun}`, ctx: { [key]: limit } };
  }
  if (issue.origin === 'array' || issue.origin === 'set') {
    const [type, word, key] = small
      ? ['too_short', 'least', 'min_length']
      : ['too_long', 'most', 'max_length'];
    const noun = limit === 1 ? 'item' : 'items';
    return { type, msg: `List should have at ${word} ${limit} ${noun}`, ctx: { [key]: limit } };
  }
  const inclusive = issue.inclusive !== false;
  const [type, words, key] = small
    ? inclusive
      ? ['greater_than_equal', 'greater than or equal to', 'ge']
      : ['greater_than', 'greater than', 'gt']
    : inclusive
      ? ['less_than_equal', 'less than or equal to', 'le']
      : ['less_than', 'less than', 'lt'];
  return { type, msg: `Input should be ${words} ${limit}`, ctx: { [key]: limit } };
}

/** Maps one zod issue to pydantic's type, message and context (without `loc` and `input`). */
function describeIssue(
  issue: ZodIssue,
  root: unknown,
): Pick<ValidationIssue, 'type' | 'msg' | 'ctx'> {
  switch (issue.code) {
    case 'invalid_type': {
      if (valueAt(root, issue.path) === undefined) {
        return { type: 'missing', msg: 'Field required' };
      }
      const [type, noun] = TYPE_ERRORS[issue.expected] ?? [
        `${issue.expected}_type`,
        `a valid ${issue.expected}`,
      ];
      return { type, msg: `Input should be ${noun}` };
    }
    case 'too_small':
    case 'too_big':
      return boundIssue(issue);
    case 'invalid_value': {
      const expected = joinExpected(issue.values);
      const type = issue.values.length === 1 ? 'literal_error' : 'enum';
      return { type, msg: `Input should be ${expected}`, ctx: { expected } };
    }
    case 'invalid_format':
      return issue.format === 'regex'
        ? { type: 'string_pattern_mismatch', msg: issue.message, ctx: { pattern: issue.pattern } }
        : { type: 'value_error', msg: issue.message };
    case 'not_multiple_of':
      return {
        type: 'multiple_of',
        msg: `Input should be a multiple of ${issue.divisor}`,
        ctx: { multiple_of: issue.divisor },
      };
    case 'invalid_union': {
      if (issue.discriminator === undefined) return { type: 'value_error', msg: issue.message };
      const discriminator = repr(issue.discriminator);
      const tag = valueAt(root, issue.path);
      if (tag === undefined) {
        return {
          type: 'union_tag_not_found',
          msg: `Unable to extract tag using discriminator ${discriminator}`,
          ctx: { discriminator },
        };
      }
      const expectedTags = ('options' in issue ? (issue.options ?? []) : []).map(repr).join(', ');
      return {
        type: 'union_tag_invalid',
        msg: `Input tag ${repr(tag)} found using ${discriminator} does not match any of the expected tags: ${expectedTags}`,
        ctx: { discriminator, tag: String(tag), expected_tags: expectedTags },
      };
    }
    default:
      return { type: 'value_error', msg: issue.message };
  }
}

/**
 * Builds the FastAPI-style 422 body for a failed zod parse, so OpenHands clients see the same
 * shape: each issue gets a pydantic error `type`, `loc` = `[location, ...fieldPath]`, a
 * pydantic-like `msg`, and `input`: the offending value, or the enclosing object for a missing
 * field.
 * @param input The value that was parsed (request body, query object or path parameters).
 */
export function validationErrorBody(
  error: z.ZodError,
  location: ValidationLocation,
  input: unknown,
): ValidationErrorBody {
  const detail: ValidationIssue[] = [];
  const toIssue = (path: readonly PropertyKey[], described: ReturnType<typeof describeIssue>) => {
    const missing = described.type === 'missing';
    const value = valueAt(input, missing ? path.slice(0, -1) : path);
    detail.push({
      type: described.type,
      loc: [location, ...path.map((key) => (typeof key === 'number' ? key : String(key)))],
      msg: described.msg,
      input: value ?? null,
      ...(described.ctx !== undefined ? { ctx: described.ctx } : {}),
    });
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        toIssue([...issue.path, key], {
          type: 'extra_forbidden',
          msg: 'Extra inputs are not permitted',
        });
      }
    } else {
      toIssue(issue.path, describeIssue(issue, input));
    }
  }
  return { detail };
}
