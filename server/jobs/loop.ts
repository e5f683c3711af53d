// A background job: `tick` runs every `intervalMs`, at once when woken (a NOTIFY says work
// is due), never twice at the same time, and not at all after stop().
import type { Job } from './job.ts';

export class JobLoop {
  /** Ticks run since start, and how many of them failed (for /metrics). */
  readonly runs = { ok: 0, failed: 0 };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly tick: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.wake();
  }

  /** Runs a tick now, or right after the one under way. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.running = this.tick()
      .then(
        () => void this.runs.ok++,
        (error: unknown) => {
          this.runs.failed++;
          this.onError(error);
        },
      )
      .finally(() => {
        this.running = undefined;
        if (this.stopped) return;
        if (this.again) {
          this.again = false;
          this.wake();
        } else {
          this.timer = setTimeout(() => this.wake(), this.intervalMs);
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }
}

/**
 * A job that is one JobLoop: `tick` every `intervalMs`, woken at once by a NOTIFY on `wakeOn`
 * when given; `onStop` runs first when it stops (to abort work under way, and wait for it).
 */
export function loopJob(
  name: string,
  tick: () => Promise<void>,
  intervalMs: number,
  onError: (error: unknown) => void,
  options: { wakeOn?: string; onStop?: () => void | Promise<void> } = {},
): Job {
  const loop = new JobLoop(tick, intervalMs, onError);
  return {
    name,
    runs: loop.runs,
    start: () => loop.start(),
    stop: async () => {
      await options.onStop?.();
      await loop.stop();
    },
    ...(options.wakeOn ? { wakeOn: { channel: options.wakeOn, wake: () => loop.wake() } } : {}),
  };
}
