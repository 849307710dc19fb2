// The activity header that carries a run's tenant to its local activities. A local activity has
// no priority of its own (its info's fairnessKey is empty), so the worker's metrics read the
// tenant label from this header instead.
export const TENANT_HEADER = 'webdata-tenant';
