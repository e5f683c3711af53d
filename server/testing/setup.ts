// Run before each of the service's test files (in the worker, whose imports they share): the
// in-memory databases the tests' services open are emptied and handed out again when closed,
// rather than loaded anew each time (storage/pglite-reuse.ts).
import { reuseInMemoryDatabases } from '../storage/pglite-reuse.ts';

reuseInMemoryDatabases();
