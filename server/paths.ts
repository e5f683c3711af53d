// Files the service serves (dist/checkout.js, the hosted pages' assets) by their place in
// the repository, whether it runs from source (server/) or compiled (build/server/).
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
export const ROOT = here.replace(/(build\/)?server\/$/, '');
export const fromRoot = (path: string): string => ROOT + path;
