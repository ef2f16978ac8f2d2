/**
 * A memo of one asynchronous value: the first call starts `load`, later calls share its promise;
 * a failed load is forgotten, so the next call tries again.
 */
export function retryAfterFailure<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (!pending) {
      const attempt = load();
      pending = attempt;
      attempt.catch(() => {
        if (pending === attempt) pending = undefined;
      });
    }
    return pending;
  };
}
