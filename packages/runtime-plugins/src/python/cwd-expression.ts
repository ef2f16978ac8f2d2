import { z } from 'zod';

/**
 * The user expression evaluated after every successful cell in the user's namespace, giving the
 * kernel's working directory; hex survives any path bytes. Read its value with
 * {@link cwdFromExpression}.
 */
export const CWD_EXPRESSION = "__import__('os').getcwdb().hex()";

const cwdExpressionSchema = z.looseObject({
  status: z.literal('ok'),
  data: z.looseObject({ 'text/plain': z.string().regex(/^'[0-9a-f]*'$/) }),
});

/**
 * The working directory from the {@link CWD_EXPRESSION} user expression's hex repr, e.g.
 * `'2f776f726b'`; `undefined` when it failed or is malformed.
 */
export function cwdFromExpression(expression: unknown): string | undefined {
  const parsed = cwdExpressionSchema.safeParse(expression);
  if (!parsed.success) return undefined;
  return Buffer.from(parsed.data.data['text/plain'].slice(1, -1), 'hex').toString('utf8');
}
