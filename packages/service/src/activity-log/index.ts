export { MemoryActivityLog, ACTIVITY_WINDOW_MS } from './log.js';
