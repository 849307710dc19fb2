// Task-queue fairness on a Temporal server: the dynamic config keys of server 1.29+
// (common/dynamicconfig/constants.go). `matching.enableFairness` dispatches a queue's backlog in
// proportion to each fairnessKey's weight (implies the priority matcher, `matching.useNewMatcher`,
// named too so a server that reads only that one still orders by priorityKey). An older server
// ignores unknown keys: tasks are then dispatched in arrival order, priority fields unused.
export const FAIRNESS_DYNAMIC_CONFIG: Readonly<Record<string, boolean>> = {
  'matching.useNewMatcher': true,
  'matching.enableFairness': true,
};

/** `temporal server start-dev` arguments that switch fairness on. */
export function fairnessDevServerArgs(): string[] {
  return Object.entries(FAIRNESS_DYNAMIC_CONFIG).flatMap(([key, value]) => ['--dynamic-config-value', `${key}=${JSON.stringify(value)}`]);
}
