// The router: routes are declared (method, path with :params), compiled once,
// and matched here. Path parameters are percent-decoded safely: a bad escape is a 400.
import { Invalid } from '../domain/errors.ts';

/**
 * `operator`: the operator's token (ADMIN_TOKEN or DATA_DIR/operator-token), never a merchant key.
 * `merchant`: the secret key, or the owner's dashboard session (a cookie; CSRF-checked on writes).
 */
export type Auth = 'public' | 'secret' | 'either' | 'merchant' | 'operator' | 'none';

/** What the router matches on; the rest of a route (api/route.ts) is the pipeline's. */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
}

interface Compiled<R extends RouteSpec> {
  spec: R;
  pattern: RegExp;
  names: string[];
}

export function decodeParam(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new Invalid(`${name}: the path has a malformed %-escape`, [{ field: name, message: 'expected a well-formed path segment' }]);
  }
}

export class Router<R extends RouteSpec> {
  private readonly routes: Compiled<R>[];

  constructor(specs: readonly R[]) {
    this.routes = specs.map((spec) => {
      const names: string[] = [];
      const source = spec.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([a-zA-Z]+)/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      });
      return { spec, pattern: new RegExp(`^${source}$`), names };
    });
  }

  /** The route for a request, its decoded parameters, or which methods the path has. */
  match(method: string, path: string): { spec: R; params: Record<string, string> } | { allowed: string[] } {
    const allowed: string[] = [];
    for (const route of this.routes) {
      const found = route.pattern.exec(path);
      if (!found) continue;
      if (route.spec.method !== method) {
        allowed.push(route.spec.method);
        continue;
      }
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => (params[name] = decodeParam(found[i + 1], name)));
      return { spec: route.spec, params };
    }
    return { allowed };
  }

  get specs(): R[] {
    return this.routes.map((r) => r.spec);
  }
}
