import type { ConversationRow } from '../api/list-conversations.js';
import { StatusBadge } from '../render/status-badge.js';

/** Props of {@link ConversationList}. */
export interface ConversationListProps {
  readonly rows: readonly ConversationRow[];
  readonly selectedId: string | null;
  onSelect(id: string): void;
}

const usd = new Intl.NumberFormat('en', {
  style: 'currency',
  currency: 'USD',
  maximumFractionDigits: 4,
});

/** The conversations as a table: title (a link selecting it), status, model, updated, cost. */
export function ConversationList({ rows, selectedId, onSelect }: ConversationListProps) {
  if (rows.length === 0) return <p>No conversations yet.</p>;
  return (
    <table aria-label="Conversations" class="conversation-list">
      <thead>
        <tr>
          <th scope="col">Title</th>
          <th scope="col">Status</th>
          <th scope="col">Model</th>
          <th scope="col">Updated</th>
          <th scope="col">Cost</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr
            key={row.id}
            aria-selected={row.id === selectedId}
            class={row.id === selectedId ? 'selected' : undefined}
          >
            <td>
              <a
                href={`#/conversations/${encodeURIComponent(row.id)}`}
                onClick={(event) => {
                  event.preventDefault();
                  onSelect(row.id);
                }}
              >
                {row.title ?? `Conversation ${row.id.slice(0, 8)}`}
              </a>
            </td>
            <td>
              <StatusBadge status={row.status} />
            </td>
            <td>{row.model ?? '—'}</td>
            <td>
              <time dateTime={row.updatedAt}>{formatTime(row.updatedAt)}</time>
            </td>
            <td>{usd.format(row.cost)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A wire timestamp as local time (today: time only). */
export function formatTime(timestamp: string): string {
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return timestamp;
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString() : date.toLocaleString();
}
