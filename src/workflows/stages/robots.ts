// The pipeline's own robots.txt check (scrape and batch scrape do not read robots.txt on the
// service): on unless ignoreRobotsTxt is in effect.
import type { PipelineConfig } from '../input.js';
import type { PipelineRuntime } from '../runtime.js';

/** ignoreRobotsTxt asked for, at the top level or in the crawl options. */
export function robotsIgnoreRequested(config: PipelineConfig): boolean {
  return config.ignoreRobotsTxt === true || config.crawl?.ignoreRobotsTxt === true;
}

/**
 * The robots check to apply now, or undefined when off. ignoreRobotsTxt turns it off only once
 * the service accepted a crawl carrying it (it answers 403 to teams without the feature), so a
 * team that may not ignore robots.txt never gets a disallowed page through the batch stage.
 * The agent is the crawl's robotsUserAgent when set, else the worker's (activities/robots.ts).
 */
export function robotsCheck(pipeline: PipelineRuntime): { userAgent?: string } | undefined {
  if (pipeline.state.robotsIgnored) return undefined;
  const userAgent = pipeline.state.config.crawl?.robotsUserAgent;
  return userAgent !== undefined ? { userAgent } : {};
}
