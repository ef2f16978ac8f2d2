import { useCallback, useEffect, useState } from 'preact/hooks';

const ROUTE = /^#\/conversations\/([^/?#]+)$/;

/** The conversation id in `location.hash` (`#/conversations/<id>`), or `null`. */
export function conversationIdOfHash(hash: string): string | null {
  const match = ROUTE.exec(hash);
  return match ? decodeURIComponent(match[1] as string) : null;
}

/**
 * The selected conversation, kept in the URL's hash so a reload or a shared link opens it (ids
 * are not secrets; the key never goes in the URL), and a setter that selects another.
 */
export function useSelectedConversation(): [string | null, (id: string | null) => void] {
  const [selected, setSelected] = useState(() => conversationIdOfHash(location.hash));
  useEffect(() => {
    const onHashChange = (): void => setSelected(conversationIdOfHash(location.hash));
    addEventListener('hashchange', onHashChange);
    return () => removeEventListener('hashchange', onHashChange);
  }, []);
  const select = useCallback((id: string | null) => {
    location.hash = id === null ? '' : `#/conversations/${encodeURIComponent(id)}`;
    setSelected(id);
  }, []);
  return [selected, select];
}
