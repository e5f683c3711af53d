// vitest's global setup: one PostgreSQL cluster for the whole unit run, stopped at its end.
// Test files make their own databases on it (see databases.ts).
import type { TestProject } from 'vitest/node';
import { startCluster } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const cluster = await startCluster();
  project.provide('postgresUrl', cluster.url);
  return () => cluster.stop();
}
