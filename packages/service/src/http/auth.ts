// Bearer-token authentication: the API key names the team.
import type { IncomingHttpHeaders } from 'node:http';
import type { TeamConfig } from '../core/teams.js';
import type { TeamRegistry } from '../config/teams.js';
import { unauthorized } from './errors.js';

export function authenticate(headers: IncomingHttpHeaders, teams: TeamRegistry): { team: TeamConfig; apiKey: string } {
  const header = headers.authorization;
  if (!header) throw unauthorized('Unauthorized: missing Authorization header (expected "Bearer <API_KEY>")');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw unauthorized('Unauthorized: invalid Authorization header (expected "Bearer <API_KEY>")');
  const apiKey = match[1];
  const team = teams.byApiKey(apiKey);
  if (!team) throw unauthorized('Unauthorized: invalid token');
  return { team, apiKey };
}
