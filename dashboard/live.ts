// Live without reloading: the events feed's long poll (GET /api/v1/events?wait=25). Each batch
// of events (a deposit, a confirmation, a delivery) calls `changed`; an answer with none (the
// wait ran out) is asked again. A failure waits a little before asking again.
import { useEffect } from 'preact/hooks';
import * as z from 'zod/mini';
import { text } from '../contract/fields.ts';
import { mode, request } from './api.ts';

export const Feed = z.object({ data: z.array(z.object({ id: text, type: text })), next: text });

export function useLive(changed: () => void): void {
  const current = mode.value;
  useEffect(() => {
    const stop = new AbortController();
    (async () => {
      let from = 'after=latest';
      while (!stop.signal.aborted) {
        try {
          const feed = await request(`/api/v1/events?${from}&wait=25&limit=100`, Feed, { signal: stop.signal });
          from = 'cursor=' + feed.next;
          if (feed.data.length) changed();
        } catch {
          if (stop.signal.aborted) return;
          await new Promise((resolve) => setTimeout(resolve, 3000));
        }
      }
    })();
    return () => stop.abort();
  }, [current]);
}
