// Settings of the example, from the environment; the defaults fit `webdata dev` on its default ports.
const env = (name, fallback) => process.env[name] || fallback;
function required(name) {
  const value = process.env[name];
  if (!value) {
    console.error(`${name}: must be set (the service's API key; \`webdata dev\` prints it)`);
    process.exit(2);
  }
  return value;
}

export const settings = {
  temporalAddress: env('TEMPORAL_ADDRESS', '127.0.0.1:7233'),
  // A queue of its own, so the runs go to this example's worker and not to the one `webdata dev` runs.
  taskQueue: env('EXAMPLE_TASK_QUEUE', 'example-backend'),
  apiUrl: env('WEBDATA_API_URL', 'http://127.0.0.1:3002'),
  // The API key comes from the environment only (`webdata dev` prints the one its service takes).
  apiKey: required('WEBDATA_API_KEY'),
  store: env('WEBDATA_STORE', '.data/store'),
  port: Number(env('PORT', '8080')),
};
