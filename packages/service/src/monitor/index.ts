// Monitor (/v2/monitor): recurring checks the service runs itself, with change detection per page.
export { registerMonitorRoutes } from './routes.js';
