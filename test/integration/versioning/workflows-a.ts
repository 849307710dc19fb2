// Build "a" of the test deployment: the package's pipeline plus a marker naming the build.
export { webDataPipeline } from '../../../src/workflows/index.js';

export async function buildMarker(): Promise<string> {
  return 'a';
}
