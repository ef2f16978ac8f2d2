/** One argument of a tool call, ready to show. */
export interface ActionArgument {
  readonly name: string;
  /** Text as is; any other value as indented JSON. */
  readonly value: string;
}

/**
 * The arguments of a tool call as name / text pairs: the action's fields but `kind`, in order;
 * `null` and absent values are left out. Without an action (it could not be parsed), the raw
 * `arguments` text of the call.
 */
export function actionArguments(
  action: Record<string, unknown> | null,
  rawArguments: string,
): ActionArgument[] {
  if (!action) return rawArguments ? [{ name: 'arguments', value: rawArguments }] : [];
  const pairs: ActionArgument[] = [];
  for (const [name, value] of Object.entries(action)) {
    if (name === 'kind' || value === null || value === undefined) continue;
    pairs.push({ name, value: typeof value === 'string' ? value : JSON.stringify(value, null, 2) });
  }
  return pairs;
}
