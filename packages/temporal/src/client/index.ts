export * from './pipeline.js';
export * from './schedules.js';
export type { PipelineProgress } from '../workflows/definitions.js';
export type { PipelineInput, PipelineConfig } from '../workflows/input.js';
export { PipelineInputError } from '../workflows/input.js';
export type { PipelineResult, StageReport } from '../workflows/state.js';
