// The teams the service knows, looked up by id and by API key.
import type { TeamConfig } from '../core/teams.js';

export interface TeamRegistry {
  byId(id: string): TeamConfig | undefined;
  byApiKey(key: string): TeamConfig | undefined;
  all(): TeamConfig[];
}

export function createTeamRegistry(teams: TeamConfig[]): TeamRegistry {
  const byId = new Map(teams.map((t) => [t.id, t]));
  const byKey = new Map<string, TeamConfig>();
  for (const team of teams) for (const key of team.apiKeys) byKey.set(key, team);
  return {
    byId: (id) => byId.get(id),
    byApiKey: (key) => byKey.get(key),
    all: () => [...teams],
  };
}
