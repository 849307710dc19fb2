// The workflows the worker runs: this example's and the package's. A Worker has one workflows
// module; when it has workflows of its own, webDataPlugin adds only the activities, so the
// package's workflows are re-exported here.
export * from './workflows.js';
export * from 'webdata-temporal/workflows';
