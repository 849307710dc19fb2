// Build "b" of the test deployment: the same pipeline, the marker changed (observably new code).
export { webDataPipeline } from '../../../src/workflows/index.js';

export async function buildMarker(): Promise<string> {
  return 'b';
}
