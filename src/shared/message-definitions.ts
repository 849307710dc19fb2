// What defineQuery/defineSignal/defineUpdate of @temporalio/workflow return, built without it: the
// message definitions are shared with the client, and a backend that only starts runs installs
// and loads no @temporalio/workflow. The brands are type-only, as there.
import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';

export const query = <Ret, Args extends unknown[] = [], Name extends string = string>(name: Name) =>
  ({ type: 'query', name }) as QueryDefinition<Ret, Args, Name>;
export const signal = <Args extends unknown[] = [], Name extends string = string>(name: Name) =>
  ({ type: 'signal', name }) as SignalDefinition<Args, Name>;
export const update = <Ret, Args extends unknown[] = [], Name extends string = string>(name: Name) =>
  ({ type: 'update', name }) as UpdateDefinition<Ret, Args, Name>;
