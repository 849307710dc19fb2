export { registerTeamRoutes } from './routes.js';
