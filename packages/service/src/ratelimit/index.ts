export { RateLimiter, RATE_WINDOW_MS, type RateDecision } from './limiter.js';
