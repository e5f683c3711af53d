// Files the service serves (dist/checkout.js, the hosted pages' assets) by their place in
// the repository, whether it runs from source (server/service/) or compiled (build/server/service/).
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
export const ROOT = here.replace(/(build\/)?server\/service\/$/, '');
export const fromRoot = (path: string): string => ROOT + path;
