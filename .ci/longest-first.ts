// The unit run's order: the longest files first (a greedy longest-processing-time schedule), so
// the two workers finish together rather than one running a minute-long file alone at the end.
// vitest orders by its own cache of last run's times, which a fresh clone (CI) does not have:
// there it runs the largest files first. The
// times here are a fresh-clone CI run's (`npm run durations` writes them from reports/unit.json);
// a file not listed yet counts as a middling one.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const UNKNOWN_SECONDS = 10; // a new file is often a chain or service test: mid-pack, not last

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    let seconds: Record<string, number> = {};
    try {
      seconds = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<string, number>;
    } catch {
      return super.sort(files); // no list: vitest's own order
    }
    const root = this.ctx.config.root;
    const estimate = (spec: TestSpecification) => seconds[relative(root, spec.moduleId)] ?? UNKNOWN_SECONDS;
    // Projects one after the other (a worker keeps its project's imports), the widget's first: its
    // files are short but one (faults.test) imports the whole service into a fresh module graph
    // and starts five services, about 35 s; run last, it was the run's tail with the other worker
    // idle. First, the service's long files are still there to fill the other worker.
    const first = (spec: TestSpecification) => (spec.project.name === 'widget' ? 0 : 1);
    return [...files].sort((a, b) => (a.project.name === b.project.name ? estimate(b) - estimate(a) : first(a) - first(b)));
  }
}
