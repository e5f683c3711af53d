// Files of the package (dist/, public/, the hosted page assets) by their place in the
// repository, whether this code runs from source (demo/) or compiled (build/demo/).
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
export const ROOT = here.replace(/(build\/)?demo\/$/, '');

export const fromRoot = (path: string): string => ROOT + path;
