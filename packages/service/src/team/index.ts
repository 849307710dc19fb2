export { registerTeamRoutes, ACTIVITY_DEFAULT_LIMIT } from './routes.js';
