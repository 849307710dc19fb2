// The activity log behind GET /v2/team/activity.

/** Endpoints as the activity listing names them (reference 4.4). */
export type ActivityEndpoint =
  | 'scrape' | 'crawl' | 'batch_scrape' | 'search' | 'extract' | 'llmstxt'
  | 'deep_research' | 'map' | 'agent' | 'browser' | 'interact';

export interface ActivityRecord {
  id: string;
  teamId: string;
  endpoint: ActivityEndpoint;
  createdAt: number;
  target: string;
}

export interface ActivityLog {
  record(entry: ActivityRecord): void;
  list(teamId: string, opts: { endpoint?: ActivityEndpoint; limit: number; cursor?: string }): { data: ActivityRecord[]; cursor: string | null; hasMore: boolean };
}
