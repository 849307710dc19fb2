// What route modules use from the platform.
export { HttpError, errorBody, badRequest, notFound, forbidden, unauthorized, insufficientCredits, rateLimited, type ErrorBody } from './errors.js';
export { parseBody, parseQuery, validationError, isUuid, assertJobId, assertOwner, queryInt, queryBool } from './validate.js';
export { newJobId, newRandomId } from './ids.js';
export { RouteTable, type HttpMethod, type RouteEntry, type RouteMatch } from './router.js';
export { createRequestListener, baseUrlOf, type PlatformDeps, type RequestListener } from './platform.js';
export { createConsoleLogger, silentLogger, type ServiceLogger } from './logger.js';
export { MAX_BODY_BYTES, PayloadTooLargeError } from './body.js';
export { listen, formatOrigin, type ListeningServer } from './server.js';
export { linkedSignal, type LinkedSignal } from './signals.js';
