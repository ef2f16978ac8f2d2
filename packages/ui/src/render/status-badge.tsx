/** Props of {@link StatusBadge}. */
export interface StatusBadgeProps {
  /** A conversation's `execution_status` (`running`, `waiting_for_confirmation`, ...). */
  readonly status: string;
}

/** A conversation's status as words (`waiting for confirmation`), coloured by its value. */
export function StatusBadge({ status }: StatusBadgeProps) {
  return <span class={`status status-${status}`}>{status.replaceAll('_', ' ')}</span>;
}
