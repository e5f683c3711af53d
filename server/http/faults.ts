// Fault injection for tests: the stub misbehaves on purpose, the way real networks and
// servers do. Off unless the stub is started with `faults: true`; never applied to a
// request made with a live key.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from './respond.ts';

export const FAULTS = ['latency', '5xx', '429', 'not_json', 'wrong_shape', 'drop'] as const;
export type Fault = (typeof FAULTS)[number];
export const CALLS = ['coins', 'initialize', 'verify'] as const;
export type Call = (typeof CALLS)[number];

export interface FaultPlan {
  call: Call;
  fault: Fault;
  /** How many requests it hits; Infinity for all of them. */
  times: number;
  /** For `latency`. */
  ms?: number;
}

export class FaultInjector {
  private plans: FaultPlan[] = [];

  inject(plan: FaultPlan): void {
    this.plans.push({ ...plan });
  }

  clear(): void {
    this.plans = [];
  }

  private take(call: Call): FaultPlan | undefined {
    const plan = this.plans.find((p) => p.call === call && p.times > 0);
    if (plan) plan.times--;
    return plan;
  }

  /**
   * Applies the next planned fault for `call`. Returns true when the response was taken
   * over (the route must not answer); latency only delays and returns false.
   */
  async apply(call: Call, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const plan = this.take(call);
    if (!plan) return false;
    switch (plan.fault) {
      case 'latency':
        await new Promise((resolve) => setTimeout(resolve, plan.ms ?? 1000));
        return false;
      case '5xx':
        sendJson(res, 503, { status: 'error', statusCode: 503, code: 'service_unavailable', message: 'Injected fault: service unavailable' });
        return true;
      case '429':
        sendJson(res, 429, { status: 'error', statusCode: 429, code: 'rate_limited', message: 'Injected fault: too many requests' }, { 'retry-after': '1' });
        return true;
      case 'not_json':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Bad gateway</body></html>');
        return true;
      case 'wrong_shape':
        sendJson(res, 200, { status: 'success', statusCode: 200, data: { surprise: true } });
        return true;
      case 'drop':
        req.socket.destroy();
        return true;
    }
  }
}
